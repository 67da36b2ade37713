// The io-bound and vacuum-2018 profiles on real servers. One embedded
// PostgreSQL 18 data directory is started three times: under the default
// profile a sequential scan of a table four times larger than io-bound's
// shared_buffers leaves the table in the kernel's page cache (fincore) and
// the next scan reads nothing from the disk; under io-bound (direct I/O,
// 32 MB of shared buffers) the scan leaves nothing in the page cache and
// every scan, and the vacuum after them, reads the table from the disk
// (read_bytes of the server's processes); under vacuum-2018 the server
// reports PostgreSQL 9.6's vacuum costs. The same vacuum-2018 settings are valid on the machine's
// PostgreSQL 15 (a private server started with them).
import t from 'tap'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { lines } from '../helpers/cli.js'
import { query, withClient } from '../helpers/pg.js'
import { startEmbedded, tempDataDir } from '../helpers/embedded.js'
import { PrivatePg } from '../helpers/private-pg.js'
import { requireTool } from '../helpers/tools.js'
import { residency } from '../helpers/page-cache.js'
import { readProfile, resolveProfile } from '../../lib/embedded/profile.js'

const run = promisify(execFile)
requireTool('vmtouch', 'vmtouch', ['-q', '/dev/null'])
requireTool('fincore', 'util-linux', ['--version'])

// About 130 MB: four times io-bound's shared_buffers.
const ROWS = 140000

const VACUUM_2018 = {
  autovacuum_vacuum_cost_delay: '20ms',
  autovacuum_vacuum_cost_limit: '-1',
  vacuum_cost_limit: '200',
  vacuum_cost_page_hit: '1',
  vacuum_cost_page_miss: '10',
  vacuum_cost_page_dirty: '20',
  vacuum_cost_delay: '0'
}

/**
 * @param {string} url
 * @param {string[]} names
 * @returns {Promise<Record<string, string>>}
 */
async function settings(url, names) {
  const { rows } = await query(url, 'SELECT name, current_setting(name) AS value FROM unnest($1::text[]) AS name', [
    names
  ])
  return Object.fromEntries(rows.map(row => [row.name, row.value]))
}

/**
 * The heap's files (every segment of the main fork).
 * @param {string} url
 */
async function heapFiles(url) {
  const { rows } = await query(
    url,
    "SELECT current_setting('data_directory') AS dir, pg_relation_filepath('big') AS path, " +
      "pg_relation_size('big') AS size"
  )
  const base = path.join(rows[0].dir, rows[0].path)
  const files = [base]
  for (let segment = 1; segment * 1073741824 < Number(rows[0].size); segment++) files.push(`${base}.${segment}`)
  return files
}

/**
 * read_bytes of the server's processes (the postmaster and its children:
 * the backends and, in PostgreSQL 18, the I/O workers that read for them).
 * @param {string} dataDir
 */
async function serverReadBytes(dataDir) {
  const postmaster = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0])
  const { stdout } = await run('pgrep', ['-P', String(postmaster)])
  let total = 0
  for (const pid of [postmaster, ...lines(stdout).map(Number)]) {
    try {
      total += Number(/read_bytes: (\d+)/.exec(await readFile(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0)
    } catch {
      // a process that ended meanwhile
    }
  }
  return total
}

/**
 * What one sequential scan of the table read from the disk.
 * @param {string} url
 * @param {string} dataDir
 */
async function scan(url, dataDir) {
  return withClient(url, async client => {
    await client.query('SET max_parallel_workers_per_gather = 0')
    const before = await serverReadBytes(dataDir)
    const { rows } = await client.query('SELECT count(*) AS n FROM big')
    if (Number(rows[0].n) !== ROWS) throw new Error(`the scan saw ${rows[0].n} rows, not ${ROWS}`)
    return (await serverReadBytes(dataDir)) - before
  })
}

/**
 * What a VACUUM (FREEZE) of the table read from the disk; it reads every
 * page (DISABLE_PAGE_SKIPPING: also those an earlier one made all-frozen).
 * @param {string} url
 * @param {string} dataDir
 */
async function freeze(url, dataDir) {
  return withClient(url, async client => {
    const before = await serverReadBytes(dataDir)
    const started = Date.now()
    await client.query('VACUUM (FREEZE, DISABLE_PAGE_SKIPPING) big')
    return { read: (await serverReadBytes(dataDir)) - before, seconds: (Date.now() - started) / 1000 }
  })
}

const mb = (/** @type {number} */ bytes) => `${(bytes / 1048576).toFixed(1)} MB`

const dataDir = await tempDataDir(t)
/** @type {string[]} */
let files = []

t.test('default profile: the scan goes through the page cache, and the table stays there', async t => {
  const { server, url } = await startEmbedded(t, { dataDir, profile: 'default' })
  t.match(
    await settings(url, ['debug_io_direct', 'shared_buffers', 'autovacuum_vacuum_cost_delay', 'vacuum_cost_page_miss']),
    { debug_io_direct: '', shared_buffers: '128MB', autovacuum_vacuum_cost_delay: '2ms', vacuum_cost_page_miss: '2' },
    "PostgreSQL 18's own settings"
  )
  await withClient(url, async client => {
    await client.query('CREATE TABLE big (id bigint, v text) WITH (autovacuum_enabled = off)')
    await client.query('INSERT INTO big SELECT i, repeat(md5(i::text), 28) FROM generate_series(1, $1::int) AS i', [
      ROWS
    ])
    await client.query('CHECKPOINT')
  })
  files = await heapFiles(url)
  await run('vmtouch', ['-q', '-e', ...files])
  t.ok((await residency(files)).fraction < 0.01, 'evicted before the scan')
  const cold = await scan(url, dataDir)
  const after = await residency(files)
  t.ok(after.size >= 4 * 32 * 1048576, `the table: ${mb(after.size)}, over four times 32 MB`)
  t.ok(after.fraction > 0.8, `after a scan ${(100 * after.fraction).toFixed(1)} % of it is in the page cache`)
  const warm = await scan(url, dataDir)
  t.ok(warm < 0.1 * after.size, `the second scan read ${mb(warm)} from the disk (the first ${mb(cold)})`)
  const vacuum = await freeze(url, dataDir)
  t.ok(
    vacuum.read < 0.1 * after.size,
    `a VACUUM (FREEZE) after them read ${mb(vacuum.read)} in ${vacuum.seconds} s: the table is in the page cache`
  )
  await server.shutdown()
})

t.test(
  'io-bound: direct I/O, small shared buffers; every scan reads the disk and leaves nothing in the page cache',
  async t => {
    const { server, url } = await startEmbedded(t, { dataDir, profile: 'io-bound' })
    t.match(
      await settings(url, ['debug_io_direct', 'io_method', 'shared_buffers', 'checkpoint_timeout']),
      { debug_io_direct: 'data', io_method: 'worker', shared_buffers: '32MB', checkpoint_timeout: '30s' },
      'the profile is in force'
    )
    await run('vmtouch', ['-q', '-e', ...files])
    const size = (await residency(files)).size
    const first = await scan(url, dataDir)
    const after = await residency(files)
    t.ok(after.fraction < 0.02, `after a scan ${(100 * after.fraction).toFixed(2)} % of the table is in the page cache`)
    const second = await scan(url, dataDir)
    t.ok(first > 0.8 * size, `the first scan read ${mb(first)} of ${mb(size)} from the disk`)
    t.ok(second > 0.8 * size, `and the second ${mb(second)}: nothing is cached`)
    const vacuum = await freeze(url, dataDir)
    t.ok(
      vacuum.read > 0.8 * size,
      `a VACUUM (FREEZE) after them read ${mb(vacuum.read)} from the disk too, in ${vacuum.seconds} s`
    )
    t.ok((await residency(files)).fraction < 0.02, 'still nothing in the page cache')
    await server.shutdown()
  }
)

t.test('vacuum-2018: PostgreSQL 9.6 vacuum costs on PostgreSQL 18 and 15', async t => {
  const { url } = await startEmbedded(t, { dataDir, profile: 'vacuum-2018' })
  t.same(await settings(url, Object.keys(VACUUM_2018)), VACUUM_2018, 'the embedded PostgreSQL 18 reports them')

  // PostgreSQL 15 refuses a setting it does not know: started with every
  // setting of the profile (includes expanded), it reports them too.
  const text = await readProfile(resolveProfile('vacuum-2018'))
  const given = lines(text.replace(/#.*$/gm, '')).map(line => {
    const match = /^\s*([a-z_]+)\s*=\s*'?([^']*?)'?\s*$/.exec(line)
    if (!match) throw new Error(`cannot read the profile's line ${line}`)
    return `${match[1]}=${match[2]}`
  })
  t.ok(given.length >= Object.keys(VACUUM_2018).length, `the profile's settings: ${given.join(', ')}`)
  const pg15 = await PrivatePg.create(t, given, 15)
  t.match(await settings(pg15.url, ['server_version_num']), { server_version_num: /^15/ }, 'PostgreSQL 15')
  t.same(await settings(pg15.url, Object.keys(VACUUM_2018)), VACUUM_2018, 'reports them')
})
