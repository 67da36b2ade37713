// Every server process killed with SIGKILL three times during a run, on a
// PostgreSQL 15 of the test's own, under the manta mix and under batched
// COPY (tsbs-cpu). The workloads run as fixtures that also write down what
// the server acknowledged, so that the true loss is known here apart from
// what the generator counted:
// - synchronous_commit = on: nothing acknowledged may go, and the generator
//   counts nothing vanished and nothing missing;
// - synchronous_commit = off: commits still in the WAL buffers die with the
//   server; what the generator counts lost equals the true loss.
// The generator finishes with exit 0 throughout (stopped by SIGTERM once
// the server is back from the last kill).
import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { CliRun, sleep } from '../helpers/cli.js'
import { query } from '../helpers/pg.js'
import { PrivatePg } from '../helpers/private-pg.js'

const KILLS = 3
const FIXTURES = new URL('../fixtures/workloads/', import.meta.url).pathname
// Async commits are written out by the WAL writer every few seconds (and by
// backends when the WAL buffers fill): a kill in between loses some.
const ASYNC = ['synchronous_commit=off', 'wal_writer_delay=5000ms']

/**
 * The acknowledged writes the fixture wrote down.
 * @param {string} file
 * @returns {Promise<any[]>}
 */
async function readAckLog(file) {
  const text = await readFile(file, 'utf8')
  return text
    .split('\n')
    .filter(line => line !== '')
    .map(line => JSON.parse(line))
}

/**
 * Runs the generator against the server, killing every server process
 * KILLS times and starting it again each time.
 * @param {import('tap').Test} t
 * @param {PrivatePg} server
 * @param {string} url
 * @param {string[]} args
 */
async function runWithKills(t, server, url, args) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-acklog-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const ackLog = path.join(dir, 'acknowledged.ndjson')
  // No duration: the run is stopped (SIGTERM, a normal end) once the
  // server is back from the last kill, so that its check at exit reads a
  // server no kill can take rows from any more.
  const run = new CliRun(['run', url, ...args, '--json', '-p', '0'], { t, env: { PGLOADGEN_TEST_ACK_LOG: ackLog } })
  await run.metricsUrl()
  for (let kill = 1; kill <= KILLS; kill++) {
    await sleep(2500)
    const pids = await server.kill()
    await server.exited
    t.pass(`kill ${kill}: SIGKILL to all ${pids.length} server processes`)
    await server.start()
  }
  await sleep(2000)
  t.ok(run.running, 'the run was still going after the last kill')
  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, `the generator ends with exit 0; stderr: ${result.stderr.slice(-1500)}`)
  return { result, summary: result.summary, acknowledged: await readAckLog(ackLog) }
}

/**
 * The true loss of manta's acknowledged inserts: for each id, only its last
 * acknowledgement can still be there, and only if the row holds the
 * fingerprint written.
 * @param {string} url
 * @param {Array<[number, number]>} acknowledged
 */
async function mantaTrueLoss(url, acknowledged) {
  const { rows } = await query(url, "SELECT id, ('x' || left(c1, 4))::bit(16)::int AS fp FROM test_table")
  const stored = new Map(rows.map(row => [Number(row.id), Number(row.fp)]))
  /** @type {Map<number, number>} */
  const last = new Map()
  for (const [id, fp] of acknowledged) last.set(id, fp)
  let present = 0
  for (const [id, fp] of last) if (stored.get(id) === fp) present++
  return acknowledged.length - present
}

/**
 * The true loss of tsbs-cpu's acknowledged rows: the keys of every
 * acknowledged batch looked for in the table, all in one query (a
 * semi-join the server can hash, not a million index probes).
 * @param {string} url
 * @param {Array<[number[], number[]]>} batches
 */
async function tsbsTrueLoss(url, batches) {
  const times = batches.flatMap(([batchTimes]) => batchTimes)
  const tags = batches.flatMap(([, batchTags]) => batchTags)
  const {
    rows: [{ n }]
  } = await query(
    url,
    'SELECT count(*)::int AS n FROM unnest($1::float8[], $2::int[]) AS k(ms, tags_id) WHERE EXISTS ' +
      "(SELECT 1 FROM tsbs_cpu AS cpu WHERE cpu.time = to_timestamp(0) + k.ms * interval '1 millisecond' AND " +
      'cpu.tags_id = k.tags_id)',
    [times, tags]
  )
  return { rows: times.length, lost: times.length - n }
}

const CASES = [
  { version: /** @type {const} */ (15), synchronous: true, batches: true },
  { version: /** @type {const} */ (15), synchronous: false, batches: true },
  { version: /** @type {const} */ (18), synchronous: false, batches: false }
]

for (const { version, synchronous, batches } of CASES) {
  const mode = `synchronous_commit = ${synchronous ? 'on' : 'off'}, PostgreSQL ${version}`

  t.test(`manta, ${mode}`, async t => {
    const server = await PrivatePg.create(t, synchronous ? [] : ASYNC, version)
    const url = server.urlOf('postgres')
    const { summary, acknowledged } = await runWithKills(t, server, url, [
      '-w',
      path.join(FIXTURES, 'manta-ack-log.js'),
      '-c',
      '8'
    ])
    if (!t.ok(summary, 'a JSON summary')) return
    t.match(summary.server_version, new RegExp(`^${version}\\.`), `against PostgreSQL ${version}`)
    t.equal(
      summary.acknowledged_inserts,
      acknowledged.length,
      `the generator counted every acknowledged insert (${acknowledged.length})`
    )
    t.ok(summary.reconnects >= 8, `the connections were replaced (${summary.reconnects} reconnects)`)
    const trueLoss = await mantaTrueLoss(url, acknowledged)
    const counted = summary.acknowledged_vanished + summary.acknowledged_missing
    if (synchronous) {
      t.equal(trueLoss, 0, 'nothing acknowledged was lost')
      t.equal(summary.acknowledged_vanished, 0, 'acknowledged_vanished: 0')
      t.equal(summary.acknowledged_missing, 0, 'acknowledged_missing: 0')
    } else {
      t.ok(trueLoss > 0, `asynchronous commits were lost (${trueLoss} of ${acknowledged.length})`)
      t.equal(
        counted,
        trueLoss,
        `vanished (${summary.acknowledged_vanished}) + missing (${summary.acknowledged_missing}) = the true ` +
          `loss (${trueLoss})`
      )
    }
  })

  if (batches)
    t.test(`tsbs-cpu batches, ${mode}`, async t => {
      const server = await PrivatePg.create(t, synchronous ? [] : ASYNC, version)
      const url = server.urlOf('postgres')
      const { summary, acknowledged } = await runWithKills(t, server, url, [
        '-w',
        path.join(FIXTURES, 'tsbs-ack-log.js'),
        '-c',
        '2',
        '--batch-size',
        '2000',
        '--mix',
        'insert_batch=1'
      ])
      if (!t.ok(summary, 'a JSON summary')) return
      const { rows, lost } = await tsbsTrueLoss(url, acknowledged)
      t.equal(
        summary.acknowledged_rows,
        rows,
        `the generator counted every acknowledged row (${rows} in ${acknowledged.length} batches)`
      )
      const audit = summary.row_audit
      t.ok(
        audit.writes_in_doubt >= 1,
        `batches cut off by the kills are in doubt (${audit.writes_in_doubt} batches, ${audit.rows_in_doubt} rows, ` +
          `${audit.rows_in_doubt_stored} of them stored)`
      )
      if (synchronous) {
        t.equal(lost, 0, 'nothing acknowledged was lost')
        t.equal(summary.rows_missing, 0, 'rows_missing: 0')
      } else {
        t.ok(lost > 0, `asynchronous commits were lost (${lost} of ${rows} rows)`)
        t.equal(summary.rows_missing, lost, `rows_missing (${summary.rows_missing}) = the true loss (${lost})`)
      }
    })
}
