// The options of `pgbench -i` as pgbench reads them (limits, wording, the
// steps added or removed by other options) and the text sent for them:
// statements that depend on scale and server version, and the COPY rows.
// Everything the server does with them is in pgbench-init.test.js.
import t from 'tap'
import { DEFAULT_INIT_STEPS, InitOptionError, parseInitOptions } from '../../lib/pgbench/init.js'
import { COPY_TABLES, copyRows, createTables, primaryKeys, serverSideInserts } from '../../lib/pgbench/init-sql.js'

t.test('defaults are pgbench -i with no options', async t => {
  t.equal(DEFAULT_INIT_STEPS, 'dtgvp')
  t.same(parseInitOptions({}), {
    scale: 1,
    fillfactor: 100,
    unlogged: false,
    initSteps: 'dtgvp',
    partitions: 0,
    partitionMethod: 'none',
    quiet: false,
    tablespace: null,
    indexTablespace: null
  })
  t.same(parseInitOptions(), parseInitOptions({}))
})

t.test('numbers as pgbench parses them, given as numbers or as text', async t => {
  t.equal(parseInitOptions({ scale: 10 }).scale, 10)
  t.equal(parseInitOptions({ scale: '10' }).scale, 10)
  t.equal(parseInitOptions({ scale: ' +7 ' }).scale, 7)
  t.equal(parseInitOptions({ scale: 2147483647 }).scale, 2147483647)
  t.equal(parseInitOptions({ fillfactor: '10' }).fillfactor, 10)
  t.equal(parseInitOptions({ fillfactor: 100 }).fillfactor, 100)
  t.equal(parseInitOptions({ partitions: '0' }).partitions, 0)
})

t.test("bad options fail with pgbench's words", async t => {
  /** @type {Array<[import('../../lib/pgbench/init-options.js').InitOptionsInput, string]>} */
  const cases = [
    [{ scale: 1.5 }, 'invalid value "1.5" for option -s/--scale'],
    [{ scale: '1.5' }, 'invalid value "1.5" for option -s/--scale'],
    [{ scale: 'abc' }, 'invalid value "abc" for option -s/--scale'],
    [{ scale: '' }, 'invalid value "" for option -s/--scale'],
    [{ scale: 0 }, '-s/--scale must be in range 1..2147483647'],
    [{ scale: -3 }, '-s/--scale must be in range 1..2147483647'],
    [{ scale: '2147483648' }, '-s/--scale must be in range 1..2147483647'],
    [{ scale: Number.NaN }, 'invalid value "NaN" for option -s/--scale'],
    [{ fillfactor: 5 }, '-F/--fillfactor must be in range 10..100'],
    [{ fillfactor: 101 }, '-F/--fillfactor must be in range 10..100'],
    [{ fillfactor: '90x' }, 'invalid value "90x" for option -F/--fillfactor'],
    [{ partitions: -1 }, '--partitions must be in range 0..2147483647'],
    [{ partitionMethod: 'list', partitions: 2 }, 'invalid partition method, expecting "range" or "hash", got: "list"'],
    [{ partitionMethod: 'hash' }, '--partition-method requires greater than zero --partitions'],
    [{ partitionMethod: 'range', partitions: 0 }, '--partition-method requires greater than zero --partitions'],
    [{ initSteps: '' }, 'no initialization steps specified'],
    [{ initSteps: 'dtx' }, 'unrecognized initialization step "x" (allowed step characters are: "dtgGvpf")'],
    [
      { initSteps: 'dtgGvp' },
      'initialization steps "g" (client-side) and "G" (server-side) generate the same data: give only one of them'
    ],
    [{ tablespace: '' }, '--tablespace needs a tablespace name']
  ]
  for (const [input, message] of cases) {
    t.throws(() => parseInitOptions(input), new InitOptionError(message), JSON.stringify(input))
    try {
      parseInitOptions(input)
    } catch (err) {
      t.ok(err instanceof InitOptionError, 'an InitOptionError')
      t.notMatch(/** @type {Error} */ (err).message, /\n/, 'one line')
    }
  }
})

t.test('steps: given, spaces ignored, -n drops v, --foreign-keys adds f once', async t => {
  t.equal(parseInitOptions({ initSteps: 'dt g  p' }).initSteps, 'dtgp')
  t.equal(parseInitOptions({ initSteps: 'dtGvp' }).initSteps, 'dtGvp')
  t.equal(parseInitOptions({ noVacuum: true }).initSteps, 'dtgp')
  t.equal(parseInitOptions({ initSteps: 'vdtv', noVacuum: true }).initSteps, 'dt')
  t.equal(parseInitOptions({ foreignKeys: true }).initSteps, 'dtgvpf')
  t.equal(
    parseInitOptions({ initSteps: 'dtfgp', foreignKeys: true }).initSteps,
    'dtfgp',
    'f already there stays where it is'
  )
  t.equal(parseInitOptions({ initSteps: ' ' }).initSteps, '', 'only spaces: nothing to do, as pgbench')
})

t.test('partitions: range unless told, method case-insensitive', async t => {
  t.same(pick(parseInitOptions({ partitions: 4 })), { partitions: 4, partitionMethod: 'range' })
  t.same(pick(parseInitOptions({ partitions: '4', partitionMethod: 'HASH' })), {
    partitions: 4,
    partitionMethod: 'hash'
  })
  t.same(pick(parseInitOptions({ partitions: 0 })), { partitions: 0, partitionMethod: 'none' })
})

/** @param {import('../../lib/pgbench/init-options.js').InitOptions} o */
function pick(o) {
  return { partitions: o.partitions, partitionMethod: o.partitionMethod }
}

t.test('account ids become bigint from scale 20000', async t => {
  const small = createTables(parseInitOptions({ scale: 19999 }), 150000)
  const big = createTables(parseInitOptions({ scale: 20000 }), 150000)
  t.match(small[2], /^create table pgbench_accounts\(aid +int not null,/)
  t.match(big[2], /^create table pgbench_accounts\(aid bigint not null,/)
  t.match(small[0], /aid +int,delta/)
  t.match(big[0], /aid bigint,delta/)
  t.match(serverSideInserts(30000)[2], /generate_series\(1, 3000000000\)/, 'no 32-bit overflow in the row count')
})

t.test('unlogged partitioned accounts: the parent only before PostgreSQL 18', async t => {
  const options = parseInitOptions({ unlogged: true, partitions: 2 })
  const before = createTables(options, 170005)
  const after = createTables(options, 180001)
  t.match(before[2], /^create unlogged table pgbench_accounts\(.*\) partition by range \(aid\)$/)
  t.match(after[2], /^create table pgbench_accounts\(.*\) partition by range \(aid\)$/)
  for (const statements of [before, after]) {
    t.match(statements[0], /^create unlogged table pgbench_history/)
    t.match(statements[4], /^create unlogged table pgbench_accounts_1\n/)
    t.equal(statements.length, 6)
  }
})

t.test('tablespaces are quoted identifiers', async t => {
  const options = parseInitOptions({ tablespace: 'fast "disk"', indexTablespace: 'idx' })
  t.match(createTables(options, 150000)[1], / tablespace "fast ""disk"""$/)
  t.match(primaryKeys(options)[0], / using index tablespace "idx"$/)
})

t.test('COPY rows: keys, branch of each key, fillers, in chunks of about 64 KiB', async t => {
  const [branches, tellers, accounts] = COPY_TABLES
  t.same([...copyRows(branches, 3)], ['1\t0\t\\N\n2\t0\t\\N\n3\t0\t\\N\n'])
  const tellerText = [...copyRows(tellers, 2)].join('')
  const tellerRows = tellerText.trimEnd().split('\n')
  t.equal(tellerRows.length, 20)
  t.equal(tellerRows[9], '10\t1\t0\t\\N')
  t.equal(tellerRows[10], '11\t2\t0\t\\N')

  /** @type {number[]} */
  const progress = []
  let rows = 0
  let previousAid = 0
  let longest = 0
  for (const chunk of copyRows(accounts, 2, { onChunk: sent => progress.push(sent) })) {
    longest = Math.max(longest, chunk.length)
    for (const line of chunk.slice(0, -1).split('\n')) {
      const [aid, bid, balance, filler] = line.split('\t')
      if (
        Number(aid) !== previousAid + 1 ||
        Number(bid) !== Math.floor((Number(aid) - 1) / 100000) + 1 ||
        balance !== '0' ||
        filler !== ''
      ) {
        t.fail(`bad row ${JSON.stringify(line)}`)
        return
      }
      previousAid++
      rows++
    }
  }
  t.equal(rows, 200000)
  t.ok(longest >= 65536 && longest <= 65536 + 20, `the longest chunk (${longest} bytes) is about 64 KiB`)
  t.ok(progress.length > 30, 'many chunks, not one')
  t.equal(progress.at(-1), 200000, 'progress ends at the total')
  t.same(
    progress,
    [...progress].sort((a, b) => a - b),
    'progress only grows'
  )
})
