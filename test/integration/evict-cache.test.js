// The evict-cache action on real servers: the machine's PostgreSQL 15 and
// an embedded PostgreSQL 18. A table (heap, primary key, TOAST table and its
// index) is read into the kernel's page cache; evict-cache drops every one
// of its files from it (fincore, util-linux's, says so independently of the
// vmtouch the action uses), the next scan reads it from the disk (the
// backend's read_bytes), and the actions after it still work. As a CLI
// command, a schedule action and refused when the data directory is not
// here (a mount namespace hides it) or not readable (run as nobody), and
// without vmtouch.
import t from 'tap'
import { execFile } from 'node:child_process'
import { chmod, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { REPO, cliCommand, hermeticEnv, lines, runCli } from '../helpers/cli.js'
import { createTestDatabase, query, withClient } from '../helpers/pg.js'
import { readEvents } from '../helpers/control.js'
import { startEmbedded } from '../helpers/embedded.js'
import { requireTool } from '../helpers/tools.js'
import { residency } from '../helpers/page-cache.js'

requireTool('vmtouch', 'vmtouch', ['-q', '/dev/null'])
requireTool('fincore', 'util-linux', ['--version'])
requireTool('unshare', 'util-linux', ['--version'])

const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-evict-'))
await chmod(dir, 0o755)
t.teardown(() => rm(dir, { recursive: true, force: true }))

/**
 * A table of about 70 MB: heap, primary key, and a TOAST table (every 200th
 * row has a 7 kB document of random hex, which does not compress). Made with
 * CREATE TABLE AS, whose writes go through a small ring of shared buffers,
 * so that the table is not left in shared buffers (128 MB): a scan of it
 * asks the kernel for its pages. Autovacuum is off for it, so nothing but
 * the test reads it.
 * @param {string} url
 */
async function makeTable(url) {
  await withClient(url, async client => {
    await client.query(`CREATE TABLE big WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off) AS
      SELECT i::bigint AS id, repeat(md5(i::text), 4) AS v,
             CASE WHEN i % 200 = 0
               THEN (SELECT string_agg(gen_random_uuid()::text, '') FROM generate_series(1, 200)) END AS doc
      FROM generate_series(1, 300000) AS i`)
    await client.query('ALTER TABLE big ADD PRIMARY KEY (id)')
  })
}

/**
 * The table's files, found here independently of the action: every file
 * of the data directory named after the relfilenode of the table, its
 * indexes, its TOAST table or the TOAST index (segments and forks).
 * @param {string} url
 */
async function tableFiles(url) {
  const { rows } = await query(
    url,
    `SELECT current_setting('data_directory') AS dir, pg_relation_filepath(oid) AS path FROM pg_class
    WHERE oid IN ('big'::regclass, 'big_pkey'::regclass,
                  (SELECT reltoastrelid FROM pg_class WHERE oid = 'big'::regclass))
       OR oid IN (SELECT indexrelid FROM pg_index
                  WHERE indrelid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'big'::regclass))`
  )
  if (rows.length !== 4) {
    throw new Error(`expected heap, primary key, TOAST table and TOAST index, found ${rows.length} relations`)
  }
  const files = []
  for (const row of rows) {
    const base = path.join(row.dir, row.path)
    for (const name of await readdir(path.dirname(base))) {
      if (new RegExp(`^${path.basename(base)}(_fsm|_vm|_init)?(\\.\\d+)?$`).test(name)) {
        files.push(path.join(path.dirname(base), name))
      }
    }
  }
  return files
}

/**
 * What a sequential scan of the heap read from the disk (the read_bytes of
 * the backend that ran it: PostgreSQL 15 reads in the backend itself), and
 * the heap's size.
 * @param {string} url
 */
async function scanReadBytes(url) {
  return withClient(url, async client => {
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
    await client.query('SET max_parallel_workers_per_gather = 0') // the backend reads every page itself
    const readBytes = async () => Number(/read_bytes: (\d+)/.exec(await readFile(`/proc/${pid}/io`, 'utf8'))?.[1])
    const before = await readBytes()
    await client.query('SELECT count(*) FROM big')
    const read = (await readBytes()) - before
    return { read, heap: Number((await client.query("SELECT pg_relation_size('big') AS size")).rows[0].size) }
  })
}

/**
 * The CLI run inside a wrapper command (unshare, setpriv).
 * @param {string[]} wrapper
 * @param {string[]} args
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
function runWrapped(wrapper, args) {
  return new Promise(resolve => {
    execFile(
      wrapper[0],
      [...wrapper.slice(1), ...cliCommand(args)],
      { cwd: REPO, env: hermeticEnv() },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number(/** @type {any} */ (err).code) : 0, stdout, stderr })
      }
    )
  })
}

/** The CLI in a mount namespace where the directory is an empty tmpfs: the server's files are not "here". */
const hiding = (/** @type {string} */ directory) => [
  'unshare',
  '--mount',
  '--',
  'sh',
  '-c',
  'mount -t tmpfs none "$0" && exec "$@"',
  directory
]

const db = await createTestDatabase(t, 'evict')
await makeTable(db.url)
const dataDir = (await query(db.url, "SELECT current_setting('data_directory') AS dir")).rows[0].dir

t.test(
  'PostgreSQL 15, the CLI: every file of the table leaves the page cache, and the next scan reads the disk',
  async t => {
    const files = await tableFiles(db.url)
    await query(db.url, 'SELECT count(*), sum(length(doc)) FROM big')
    const before = await residency(files)
    t.ok(before.size > 40e6, `the table's files: ${(before.size / 1e6).toFixed(1)} MB in ${files.length} files`)
    t.ok(before.fraction > 0.5, `read: ${(100 * before.fraction).toFixed(1)} % resident`)

    const events = path.join(dir, 'pg15.ndjson')
    const result = await runCli(['evict-cache', db.url, '--table', 'big', '--json', '--events', events], { t })
    t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
    const outcome = JSON.parse(result.stdout)
    t.match(
      outcome,
      { action: 'evict-cache', table: 'big', ok: true, detail: { data_directory: dataDir, relations: 4 } },
      '--json: the outcome'
    )
    t.equal(outcome.detail.files, files.length, 'every file (segments and forks) of the four relations')
    t.equal(outcome.detail.bytes, before.size, 'their bytes')
    t.ok(
      outcome.detail.resident_pages_before * outcome.detail.page_size >= 0.9 * before.resident,
      `resident before, per vmtouch: ${outcome.detail.resident_pages_before} pages`
    )
    t.ok(
      outcome.detail.resident_pages_after <= 0.01 * outcome.detail.total_pages,
      `resident after, per vmtouch: ${outcome.detail.resident_pages_after} of ${outcome.detail.total_pages} pages`
    )
    t.match(
      result.stderr,
      /evict-cache of big: \d+ files of 4 relations, [\d.]+ MiB; resident [\d.]+ MiB before, 0.0 MiB after/,
      'the log says what was evicted'
    )

    const after = await residency(files)
    t.ok(
      after.fraction <= 0.01,
      `fincore: ${(100 * after.fraction).toFixed(2)} % resident after (${after.resident} bytes)`
    )

    const ended = (await readEvents(events)).filter(e => e.action === 'evict-cache')
    t.match(
      ended.map(e => e.kind),
      ['start', 'end'],
      'a start and an end event'
    )
    t.match(
      ended[1],
      { table: 'big', ok: true, detail: { files: files.length, bytes: before.size } },
      'the end says what was evicted'
    )

    // The heap comes back from the disk (but for what shared buffers still
    // hold: at most the 16 MB ring CREATE TABLE AS wrote through), then from
    // the page cache.
    const cold = await scanReadBytes(db.url)
    const warm = await scanReadBytes(db.url)
    t.ok(
      cold.read >= 0.6 * cold.heap,
      `the scan after the eviction read ${(cold.read / 1e6).toFixed(1)} MB of the ${(cold.heap / 1e6).toFixed(1)} ` +
        `MB heap from the disk`
    )
    t.ok(warm.read <= 0.05 * cold.heap, `the next one ${(warm.read / 1e6).toFixed(1)} MB`)

    // An action after it works, and reads the files back in.
    await runCli(['evict-cache', db.url, '--table', 'big', '--events', events], { t })
    const vacuum = await runCli(['vacuum', db.url, '--table', 'big', '--json', '--events', events], { t })
    t.equal(vacuum.code, 0, `the vacuum after it: exit 0; stderr: ${vacuum.stderr}`)
    t.match(JSON.parse(vacuum.stdout), { ok: true }, 'and ok')
  }
)

t.test('PostgreSQL 15, a schedule: evict-cache then vacuum', async t => {
  await query(db.url, 'SELECT count(*), sum(length(doc)) FROM big')
  const files = await tableFiles(db.url)
  const schedule = path.join(dir, 'schedule.yaml')
  // a freeze: it reads every page a plain vacuum before it left unfrozen (all of them)
  await writeFile(
    schedule,
    'actions:\n  - action: evict-cache\n    table: big\n    after: 0s\n  - action: vacuum\n    table: ' +
      'big\n    freeze: true\n    after: 2s\n'
  )
  const events = path.join(dir, 'schedule.ndjson')
  const result = await runCli(
    [
      'sidecar',
      db.url,
      '--schedule',
      schedule,
      '--events',
      events,
      '-p',
      '0',
      '--stats-interval',
      '1',
      '--duration',
      '30'
    ],
    { t }
  )
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const all = await readEvents(events)
  const evicted = all.find(e => e.action === 'evict-cache' && e.kind === 'end')
  const vacuumed = all.find(e => e.action === 'vacuum_freeze' && e.kind === 'end')
  t.match(evicted, { ok: true, table: 'big', detail: { relations: 4, files: files.length } }, 'the eviction ended ok')
  t.ok(
    evicted.detail.resident_pages_before > 0 &&
      evicted.detail.resident_pages_after <= 0.01 * evicted.detail.total_pages,
    `${evicted.detail.resident_pages_before} pages resident before, ${evicted.detail.resident_pages_after} after`
  )
  t.match(vacuumed, { ok: true, table: 'big' }, 'the vacuum after it ended ok')
  t.ok(Date.parse(vacuumed.ts) > Date.parse(evicted.ts), 'after the eviction')
  t.ok((await residency(files)).fraction > 0.5, 'the vacuum read the table back into the cache')
})

t.test('refused when the data directory is not here or not readable', async t => {
  const events = path.join(dir, 'refused.ndjson')
  const hidden = await runWrapped(hiding(dataDir), ['evict-cache', db.url, '--table', 'big', '--events', events])
  t.equal(hidden.code, 2, `not on this machine: exit 2; stderr: ${hidden.stderr}`)
  t.equal(lines(hidden.stderr).length, 1, 'one line')
  t.match(
    hidden.stderr,
    /^pgloadgen: the server's data directory .* is not on this machine \(a remote server\?\)/,
    'which says so'
  )

  const nobody = await runWrapped(
    ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'],
    ['evict-cache', db.url, '--table', 'big', '--events', events]
  )
  t.equal(nobody.code, 2, `unreadable: exit 2; stderr: ${nobody.stderr}`)
  t.equal(lines(nobody.stderr).length, 1, 'one line')
  t.match(nobody.stderr, /^pgloadgen: cannot read the server's data directory .* as nobody/, 'which says so')
  t.same(await readEvents(events), [], 'a refusal records nothing')

  // without vmtouch: a PATH that finds env (the CLI starts through it) and nothing else
  const bare = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-no-vmtouch-'))
  t.teardown(() => rm(bare, { recursive: true, force: true }))
  await symlink('/usr/bin/env', path.join(bare, 'env'))
  const noTool = await runCli(['evict-cache', db.url, '--table', 'big', '--events', events], { t, env: { PATH: bare } })
  t.equal(noTool.code, 1, `no vmtouch: a missing tool, exit 1; stderr: ${noTool.stderr}`)
  t.equal(lines(noTool.stderr).length, 1, 'one line')
  t.match(
    noTool.stderr,
    /^pgloadgen: evict-cache needs vmtouch, which is not installed \(Debian package vmtouch/,
    'which names the package'
  )

  const badName = await runCli(['evict-cache', db.url, '--table', 'big; drop table big', '--events', events], { t })
  t.equal(badName.code, 2, 'a bad table name: exit 2')
  const missing = await runCli(['evict-cache', db.url, '--table', 'no_such_table', '--events', events], { t })
  t.equal(missing.code, 1, 'a table that does not exist: a failed action, exit 1')
  t.match(missing.stderr, /relation "no_such_table" does not exist/, 'the server says why')

  // In a schedule, a failed action that does not stop the next one.
  const schedule = path.join(dir, 'refused.yaml')
  await writeFile(
    schedule,
    'actions:\n  - action: evict-cache\n    table: big\n    after: 0s\n  - action: checkpoint\n    after: 1s\n'
  )
  const sidecarEvents = path.join(dir, 'refused-schedule.ndjson')
  const sidecar = await runWrapped(hiding(dataDir), [
    'sidecar',
    db.url,
    '--schedule',
    schedule,
    '--events',
    sidecarEvents,
    '-p',
    '0',
    '--duration',
    '30'
  ])
  t.equal(sidecar.code, 0, `the sidecar goes on: exit 0; stderr: ${sidecar.stderr}`)
  const all = await readEvents(sidecarEvents)
  t.match(
    all.find(e => e.action === 'evict-cache' && e.kind === 'end'),
    { ok: false, error: /is not on this machine/ },
    'the eviction failed'
  )
  t.match(
    all.find(e => e.action === 'checkpoint' && e.kind === 'end'),
    { ok: true },
    'the checkpoint after it ran'
  )
})

t.test('embedded PostgreSQL 18: the same eviction', async t => {
  const { url } = await startEmbedded(t)
  await makeTable(url)
  const files = await tableFiles(url)
  await query(url, 'SELECT count(*), sum(length(doc)) FROM big')
  const before = await residency(files)
  t.ok(
    before.fraction > 0.5,
    `read: ${(100 * before.fraction).toFixed(1)} % of ${(before.size / 1e6).toFixed(1)} MB resident`
  )
  const events = path.join(dir, 'pg18.ndjson')
  const result = await runCli(['evict-cache', url, '--table', 'big', '--json', '--events', events], { t })
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const outcome = JSON.parse(result.stdout)
  t.match(
    outcome,
    { ok: true, detail: { relations: 4, files: files.length, bytes: before.size } },
    'every file of the four relations'
  )
  const after = await residency(files)
  t.ok(
    after.fraction <= 0.01,
    `fincore: ${(100 * after.fraction).toFixed(2)} % resident after (${after.resident} bytes)`
  )
  const vacuum = await runCli(['vacuum', url, '--table', 'big', '--json', '--events', events], { t })
  t.equal(vacuum.code, 0, `the vacuum after it: exit 0; stderr: ${vacuum.stderr}`)
  t.ok((await residency(files)).fraction > 0.5, 'and read the table back into the cache')
})
