// -f FILE[@WEIGHT] and -b NAME[@WEIGHT] as pgbench reads them: the built-in
// scripts word for word, the unique-prefix rule, weights, the order given,
// and every problem as one line.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { ScriptLoadError } from '../../lib/pgbench/errors.js'
import { BUILTIN_SCRIPTS, findBuiltin, listBuiltins, showBuiltin } from '../../lib/pgbench/builtins.js'
import { builtinScript, loadScripts, parseScriptWeight } from '../../lib/pgbench/scripts.js'
import { SET, SQL } from '../../lib/pgbench/script/commands.js'
import { requireTool } from '../helpers/tools.js'

const run = promisify(execFile)
requireTool('pgbench', 'postgresql-15')
const FIXTURES = fileURLToPath(new URL('../fixtures/pgbench/', import.meta.url))
const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-pgbench-load-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

t.test("the built-in scripts are pgbench's own", async t => {
  for (const builtin of BUILTIN_SCRIPTS) {
    const { stderr } = await run('pgbench', [`--show-script=${builtin.name}`])
    t.equal(showBuiltin(builtin.name), stderr, builtin.name)
  }
  const listed = await run('pgbench', ['-b', 'list']).then(
    r => r.stderr,
    err => err.stderr
  )
  t.equal(listBuiltins(), listed)
  const tpcb = builtinScript('tpcb-like')
  t.same(
    tpcb.commands.map(c => c.kind),
    [SET, SET, SET, SET, SQL, SQL, SQL, SQL, SQL, SQL, SQL]
  )
  t.same(
    [tpcb.name, tpcb.file, tpcb.description, tpcb.weight, tpcb.usesBuiltin],
    ['tpcb-like', 'tpcb-like', '<builtin: TPC-B (sort of)>', 1, true]
  )
  t.equal(builtinScript('simple-update').commands.length, 9)
  const [, select] = /** @type {any[]} */ (builtinScript('select-only').commands)
  t.equal(select.statement.text, 'SELECT abalance FROM pgbench_accounts WHERE aid = $1;')
  t.same(select.variables, ['aid'])
})

t.test('built-in names: any unique prefix', async t => {
  t.equal(findBuiltin('tpcb').name, 'tpcb-like')
  t.equal(findBuiltin('si').name, 'simple-update')
  t.equal(findBuiltin('select-only').name, 'select-only')
  const available = '(available: tpcb-like, simple-update, select-only)'
  t.throws(
    () => findBuiltin('s'),
    new ScriptLoadError(`ambiguous builtin name: 2 builtin scripts found for prefix "s" ${available}`)
  )
  t.throws(
    () => findBuiltin(''),
    new ScriptLoadError(`ambiguous builtin name: 3 builtin scripts found for prefix "" ${available}`)
  )
  t.throws(() => findBuiltin('tpcc'), new ScriptLoadError(`no builtin script found for name "tpcc" ${available}`))
  t.throws(() => findBuiltin('TPCB'), /no builtin script found/, 'names are case-sensitive, as in pgbench')
})

t.test('weights: NAME@WEIGHT split at the last @', async t => {
  t.same(parseScriptWeight('a.sql'), { name: 'a.sql', weight: 1 })
  t.same(parseScriptWeight('a.sql@3'), { name: 'a.sql', weight: 3 })
  t.same(parseScriptWeight('a@b.sql@0'), { name: 'a@b.sql', weight: 0 })
  t.same(parseScriptWeight('x@ +7'), { name: 'x', weight: 7 })
  t.same(parseScriptWeight('x@2147483647'), { name: 'x', weight: 2147483647 })
  t.throws(() => parseScriptWeight('x@'), new ScriptLoadError('invalid weight specification: @'))
  t.throws(() => parseScriptWeight('x@2x'), new ScriptLoadError('invalid weight specification: @2x'))
  t.throws(() => parseScriptWeight('x@1.5'), new ScriptLoadError('invalid weight specification: @1.5'))
  t.throws(
    () => parseScriptWeight('x@99999999999999999999'),
    new ScriptLoadError('invalid weight specification: @99999999999999999999')
  )
  t.throws(
    () => parseScriptWeight('x@-1'),
    new ScriptLoadError('weight specification out of range (0 .. 2147483647): -1')
  )
  t.throws(
    () => parseScriptWeight('x@2147483648'),
    new ScriptLoadError('weight specification out of range (0 .. 2147483647): 2147483648')
  )
})

t.test('scripts come in the order given, named after their files', async t => {
  const sleep = path.join(FIXTURES, 'sleep.sql')
  const mixed = await loadScripts({ specs: [{ builtin: 'select@2' }, { file: `${sleep}@3` }, { builtin: 'tpcb' }] })
  t.same(
    mixed.map(s => [s.name, s.weight, s.usesBuiltin, s.file]),
    [
      ['select-only', 2, true, 'select-only'],
      ['sleep', 3, false, sleep],
      ['tpcb-like', 1, true, 'tpcb-like']
    ]
  )
  const split = await loadScripts({
    files: ['sleep.sql', 'conditionals.sql@5'],
    builtins: ['simple'],
    baseDir: FIXTURES
  })
  t.same(
    split.map(s => [s.name, s.weight, s.file]),
    [
      ['sleep', 1, 'sleep.sql'],
      ['conditionals', 5, 'conditionals.sql'],
      ['simple-update', 1, 'simple-update']
    ]
  )
  const none = await loadScripts({})
  t.same(
    none.map(s => s.name),
    ['tpcb-like'],
    "pgbench's default script"
  )
})

t.test('problems are one line', async t => {
  await writeFile(path.join(dir, 'bad.sql'), 'SELECT 1;\n\\foo\n')
  await writeFile(path.join(dir, 'empty.sql'), '-- nothing\n')
  await writeFile(path.join(dir, 'many.sql'), `SELECT ${Array.from({ length: 256 }, (_, i) => `:v${i}`).join(', ')};\n`)
  await mkdir(path.join(dir, 'folder.sql'))
  const cases = [
    [{ files: ['bad.sql'] }, 'bad.sql:2: invalid command in command "foo"'],
    [{ files: ['empty.sql'] }, 'empty command list for script "empty.sql"'],
    [{ files: ['missing.sql'] }, 'could not open file "missing.sql": No such file or directory'],
    [{ files: ['folder.sql'] }, 'could not read file "folder.sql": Is a directory'],
    [{ files: ['bad.sql@x'] }, 'invalid weight specification: @x'],
    [{ builtins: ['select@0'] }, 'total script weight must not be zero'],
    [
      { builtins: ['nope'] },
      'no builtin script found for name "nope" (available: tpcb-like, simple-update, select-only)'
    ],
    [{ builtins: Array.from({ length: 129 }, () => 'select') }, 'at most 128 SQL scripts are allowed'],
    [
      { files: ['many.sql'], protocol: 'prepared' },
      /^many\.sql:1: statement has too many arguments \(maximum is 255\): SELECT :v0, :v1, /
    ]
  ]
  for (const [options, message] of cases) {
    const err = await loadScripts({ baseDir: dir, .../** @type {object} */ (options) }).then(
      () => null,
      e => e
    )
    t.ok(err instanceof ScriptLoadError, JSON.stringify(options).slice(0, 80))
    if (typeof message === 'string') t.equal(err?.message, message)
    else t.match(err?.message, message)
    t.notMatch(err?.message, /\n/)
  }
  const simple = await loadScripts({ files: ['many.sql'], baseDir: dir, protocol: 'simple' })
  t.equal(simple.length, 1, 'the simple protocol has no limit on variables')
  const weighted = await loadScripts({ builtins: ['select@0', 'tpcb@1'] })
  t.same(
    weighted.map(s => s.weight),
    [0, 1],
    'a script of weight 0 is kept'
  )
})
