// What each vacuum cost, on real servers: PostgreSQL 15 (the machine's) and
// the embedded PostgreSQL 18. Two like tables of ~20 MB are made
// all-visible by a plain VACUUM; after a CHECKPOINT, `pgloadgen vacuum
// --freeze` of one must freeze about every page and write a full-page image
// of each, and a plain `pgloadgen vacuum` of the other must freeze about
// none and write far less WAL. The figures the server cannot give (15 has
// no pg_stat_io) are null and the report says why; the run and experiment
// reports show the figures.
import t from 'tap'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli } from '../helpers/cli.js'
import { createTestDatabase, withClient } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { readEvents } from '../helpers/control.js'
import { buildReport } from '../../lib/report/render.js'
import { experimentSummaryProblems } from '../helpers/summary-schema.js'
import { vacuumCost } from '../../lib/pgstats/vacuum-cost.js'
import { autovacuumsInLog, parseLegacyVerbose, parseVacuumReport } from '../../lib/pgstats/vacuum-report.js'

const ROWS = 200000 // about 20 MB of heap

const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-vacuum-cost-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

/**
 * Two like tables, all-visible and not frozen: hint bits are set by a scan
 * first, so that the plain VACUUM that marks them all-visible writes no
 * full-page image and freezes nothing opportunistically.
 * @param {string} url
 */
async function prepare(url) {
  await withClient(url, async client => {
    for (const name of ['cost_freeze', 'cost_plain']) {
      await client.query(`DROP TABLE IF EXISTS ${name}`)
      await client.query(
        `CREATE TABLE ${name} (id bigint PRIMARY KEY, v text NOT NULL) WITH (autovacuum_enabled = off)`
      )
      await client.query(
        `INSERT INTO ${name} SELECT i, repeat(md5(i::text), 2) FROM generate_series(1, $1::int) AS i`,
        [ROWS]
      )
    }
    await client.query('CHECKPOINT')
    for (const name of ['cost_freeze', 'cost_plain']) {
      await client.query(`SELECT count(*) FROM ${name}`)
      // a page whose buffer another process pins at that moment (the
      // background writer flushing the hint bits, on a loaded machine) is
      // left for a later VACUUM: again until every page is all-visible
      for (let round = 0; round < 5; round++) {
        await client.query(`VACUUM ${name}`)
        const { rows } = await client.query(
          `SELECT relallvisible = relpages AS done FROM pg_class WHERE oid = '${name}'::regclass`
        )
        if (rows[0].done) break
      }
    }
  })
}

/**
 * `pgloadgen vacuum` through the CLI, after a CHECKPOINT; its cost.
 * @param {Tap.Test} t
 * @param {string} url
 * @param {string} table
 * @param {boolean} freeze
 * @param {string} events
 */
async function vacuum(t, url, table, freeze, events) {
  await withClient(url, client => client.query('CHECKPOINT'))
  const result = await runCli(
    ['vacuum', url, '--table', table, ...(freeze ? ['--freeze'] : []), '--json', '--events', events],
    { t }
  )
  t.equal(result.code, 0, `vacuum ${freeze ? '--freeze ' : ''}${table}: exit 0; stderr: ${result.stderr}`)
  const outcome = JSON.parse(result.stdout)
  t.ok(outcome.detail?.cost, '--json: the outcome has the cost')
  const end = (await readEvents(events)).filter(e => e.kind === 'end' && e.table === table)
  t.same(end[0]?.detail?.cost, outcome.detail?.cost, 'the end event has the same cost')
  return /** @type {import('../../lib/pgstats/vacuum-cost.js').VacuumCost} */ (outcome.detail.cost)
}

/**
 * Writes a run directory around an events file and an experiment directory
 * of two variants, and renders both reports.
 * @param {string} dir
 * @param {string} events
 * @param {string} version
 */
async function reports(dir, events, version) {
  const all = await readFile(events, 'utf8')
  const started = JSON.parse(all.split('\n')[0]).ts
  const run = path.join(dir, 'run')
  await mkdir(run, { recursive: true })
  await writeFile(
    path.join(run, 'run.json'),
    JSON.stringify({ postgres_version: version, started_at: started, table: 'cost_freeze', workload: 'none' })
  )
  await writeFile(path.join(run, 'events.ndjson'), all)
  const experiment = path.join(dir, 'experiment')
  await mkdir(experiment, { recursive: true })
  await writeFile(
    path.join(experiment, 'experiment.json'),
    JSON.stringify({
      name: 'freeze-vs-vacuum',
      postgres_version: version,
      started_at: started,
      plan: { variants: [{ name: 'freeze' }, { name: 'plain' }] }
    })
  )
  const lines = all.split('\n').filter(Boolean)
  for (const [variant, table] of [
    ['freeze', 'cost_freeze'],
    ['plain', 'cost_plain']
  ]) {
    const rep = path.join(experiment, 'variants', variant, 'rep-1')
    await mkdir(rep, { recursive: true })
    await writeFile(
      path.join(rep, 'run.json'),
      JSON.stringify({ postgres_version: version, started_at: started, table, workload: 'none' })
    )
    await writeFile(path.join(rep, 'events.ndjson'), lines.filter(l => JSON.parse(l).table === table).join('\n') + '\n')
  }
  return { run: await buildReport(run), experiment: await buildReport(experiment) }
}

/**
 * The whole check on one server.
 * @param {Tap.Test} t
 * @param {string} url
 * @param {number} major
 */
async function onServer(t, url, major) {
  await prepare(url)
  const events = path.join(work, `events-${major}.ndjson`)
  const frozen = await vacuum(t, url, 'cost_freeze', true, events)
  const plain = await vacuum(t, url, 'cost_plain', false, events)
  const pages = /** @type {number} */ (frozen.heap_pages)
  t.comment(`PostgreSQL ${major}: FREEZE ${JSON.stringify(frozen)}`)
  t.comment(`PostgreSQL ${major}: VACUUM ${JSON.stringify(plain)}`)
  t.ok(pages > 2000, `the table has ${pages} heap pages`)
  t.equal(frozen.source, 'VACUUM VERBOSE', "the figures come from the vacuum's own report")
  t.same(
    frozen.vm_before,
    { all_visible: pages, all_frozen: frozen.vm_before?.all_frozen },
    'before: every page all-visible'
  )
  t.ok(
    (frozen.vm_before?.all_frozen ?? pages) < pages * 0.05,
    `before: few pages all-frozen (${frozen.vm_before?.all_frozen})`
  )
  t.ok(
    (frozen.pages_frozen ?? 0) > pages * 0.95 && (frozen.pages_frozen ?? 0) <= pages,
    `FREEZE froze about every page: ${frozen.pages_frozen} of ${pages}`
  )
  t.equal(frozen.pages_scanned, pages, 'FREEZE scanned every page')
  t.same(frozen.vm_after, { all_visible: pages, all_frozen: pages }, 'after: every page all-frozen')
  t.ok((frozen.wal_bytes ?? 0) > 0, `FREEZE wrote WAL: ${frozen.wal_bytes} bytes`)
  t.ok((frozen.wal_fpi ?? 0) >= pages * 0.95, `a full-page image per page after the checkpoint: ${frozen.wal_fpi}`)
  t.ok(
    (frozen.server_wal?.bytes ?? 0) >= (frozen.wal_bytes ?? Infinity),
    'the server wrote at least as much WAL meanwhile'
  )
  t.equal(frozen.index_scans, 0, 'no index scan: nothing dead')
  // a vacuum of 20 MB in shared buffers may end before the follower's first poll
  t.ok(
    frozen.phases ? Object.keys(frozen.phases).length > 0 : /first poll/.test(frozen.unavailable.phases),
    `phases: ${JSON.stringify(frozen.phases) ?? frozen.unavailable.phases}`
  )

  t.ok((plain.pages_frozen ?? Infinity) <= pages * 0.05, `a plain VACUUM froze about nothing: ${plain.pages_frozen}`)
  t.ok((plain.pages_skipped ?? 0) >= pages * 0.9, `it skipped the all-visible pages: ${plain.pages_skipped}`)
  t.ok(
    (plain.wal_bytes ?? Infinity) * 10 < (frozen.wal_bytes ?? 0),
    `and wrote far less WAL: ${plain.wal_bytes} against ${frozen.wal_bytes} bytes`
  )
  t.ok(
    (plain.wal_fpi ?? Infinity) * 10 < (frozen.wal_fpi ?? 0),
    `and fewer full-page images: ${plain.wal_fpi} against ${frozen.wal_fpi}`
  )

  if (major < 16) {
    t.equal(frozen.io, null, 'no pg_stat_io figures on 15')
    t.match(frozen.unavailable.io, /needs PostgreSQL 16: pg_stat_io/, 'and why')
    t.match(
      frozen.unavailable.pages_frozen,
      /needs PostgreSQL 16: .*count frozen pages/,
      'pages frozen: from the visibility map, and it says so'
    )
  } else {
    t.type(frozen.io?.reads, 'number', `pg_stat_io reads: ${frozen.io?.reads}`)
    t.type(frozen.io?.writes, 'number', `pg_stat_io writes: ${frozen.io?.writes}`)
    t.notOk('io' in frozen.unavailable, 'nothing said missing about io')
    t.equal(frozen.tuples_frozen, ROWS, 'the report counts the tuples frozen')
  }

  const { run, experiment } = await reports(path.join(work, `reports-${major}`), events, String(major))
  t.match(run.html, /What each vacuum cost/, 'the run report has the section')
  t.match(run.html, /vacuum freeze of cost_freeze/, 'a column per vacuum')
  t.match(experiment.html, /What each vacuum cost/, 'the experiment report too')
  t.same(
    experimentSummaryProblems(experiment.summary),
    [],
    'the experiment summary follows docs/experiment-summary.schema.json'
  )
  const variants = /** @type {any} */ (experiment.summary)?.variants
  t.equal(
    variants?.[0]?.vacuum_cost?.mean?.pages_frozen,
    frozen.pages_frozen,
    "summary.json: the variant's pages frozen"
  )
  t.equal(variants?.[1]?.vacuum_cost?.mean?.wal_bytes, plain.wal_bytes, "summary.json: the other variant's WAL bytes")
  if (major < 16) {
    t.match(run.html, /n\/a \(needs PostgreSQL 16: pg_stat_io/, 'the report says why there are no pg_stat_io figures')
    t.match(experiment.html, /n\/a \(needs PostgreSQL 16: pg_stat_io/, 'in the comparison too')
  } else {
    t.notMatch(run.html, /needs PostgreSQL 16: pg_stat_io/, 'no excuse on 18')
  }
}

t.test('PostgreSQL 15', async t => {
  const db = await createTestDatabase(t, 'vacuum_cost')
  await onServer(t, db.url, 15)
})

t.test('embedded PostgreSQL 18', async t => {
  const { url } = await startEmbedded(t)
  await onServer(t, url, 18)
})

t.test('an autovacuum entry of the server log', async t => {
  // The server's log lines as written, one line each: a split would change the data parsed.
  const log = `2025-05-01 10:00:00.000 UTC [77] LOG:  checkpoint starting: time
2025-05-01 10:00:01.500 UTC [88] LOG:  automatic aggressive vacuum to prevent wraparound of table "lab.public.test_table": index scans: 1
\tpages: 0 removed, 2500 remain, 2500 scanned (100.00% of total)
\ttuples: 10 removed, 200000 remain, 0 are dead but not yet removable
\tremovable cutoff: 1000, which was 3 XIDs old when operation ended
\tindex scan needed: 7 pages from table (0.28% of total) had 10 dead item identifiers removed
\tbuffer usage: 5100 hits, 0 misses, 2600 dirtied
\tWAL usage: 5200 records, 2500 full page images, 20500000 bytes
\tsystem usage: CPU: user: 0.10 s, system: 0.01 s, elapsed: 0.50 s
2025-05-01 10:00:02.000 UTC [77] LOG:  checkpoint complete`
  const found = autovacuumsInLog(log)
  t.equal(found.length, 1, 'one autovacuum')
  t.equal(found[0].ts, '2025-05-01T10:00:01.500Z', 'its time')
  t.match(
    found[0].report,
    {
      relation: 'lab.public.test_table',
      mode: 'wraparound',
      aggressive: true,
      index_scans: 1,
      pages_scanned: 2500,
      pages_skipped: 0,
      dead_items_removed: 10,
      wal_fpi: 2500,
      wal_bytes: 20500000,
      pages_frozen: null
    },
    'its figures'
  )
  t.equal(parseVacuumReport('vacuuming "x"'), null, 'other messages are not reports')
})

t.test('the reports of PostgreSQL 13 and 14', async t => {
  const log = `2026-01-01 10:00:04.157 UTC [12967] LOG:  automatic vacuum of table "lab.public.a": index scans: 1
\tpages: 3 removed, 31 remain, 0 skipped due to pins, 0 skipped frozen
\ttuples: 1000 removed, 4000 remain, 0 are dead but not yet removable, oldest xmin: 498
\tbuffer usage: 212 hits, 2 misses, 4 dirtied
\tavg read rate: 0.448 MB/s, avg write rate: 0.897 MB/s
\tsystem usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.03 s
\tWAL usage: 112 records, 1 full page images, 32874 bytes`
  const [auto] = autovacuumsInLog(log)
  t.match(
    auto.report,
    {
      relation: 'lab.public.a',
      index_scans: 1,
      pages_removed: 3,
      pages_remain: 31,
      pages_scanned: null,
      pages_skipped: null,
      tuples_removed: 1000,
      dead_items_removed: null,
      wal_records: 112,
      wal_bytes: 32874,
      buffer_hits: 212
    },
    "13's log entry: no pages scanned, never 0"
  )
  const autoCost = vacuumCost({ report: auto.report, before: null, after: null, phases: null, source: 'server log' })
  t.match(autoCost.unavailable.pages_scanned, /^needs PostgreSQL 15: /, 'and why')
  t.match(autoCost.unavailable.dead_items_removed, /^needs PostgreSQL 14: /, 'dead items: 14 logs them')

  const notice = (/** @type {string} */ message, detail = '') => ({ message, detail })
  const v13 = parseLegacyVerbose(
    [
      notice('vacuuming "public.t"'),
      notice('scanned index "t_pkey" to remove 86 row versions'),
      notice('"t": removed 86 row versions in 2 pages'),
      notice('index "t_pkey" now contains 1000 row versions in 7 pages'),
      notice(
        '"t": found 333 removable, 1000 nonremovable row versions in 5 out of 7 pages',
        '2 dead row versions cannot be removed yet, oldest xmin: 493\nSkipped 0 pages due to buffer pins, ' +
          '0 frozen pages.'
      ),
      notice('"t": truncated 7 to 6 pages'),
      notice('vacuuming "pg_toast.pg_toast_16385"'),
      notice(
        '"pg_toast_16385": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages',
        '0 dead row versions cannot be removed yet, oldest xmin: 493'
      )
    ],
    'lab'
  )
  t.equal(v13.length, 2, '13: a report per relation')
  t.match(
    v13[0],
    {
      relation: 'lab.public.t',
      aggressive: false,
      index_scans: 1,
      pages_scanned: 5,
      pages_skipped: 2,
      pages_removed: 1,
      pages_remain: 6,
      tuples_removed: 333,
      tuples_remain: 1000,
      tuples_dead_not_removable: 2,
      dead_items_removed: 86,
      pages_with_dead_items_removed: 2,
      wal_bytes: null,
      buffer_hits: null
    },
    "the table's figures"
  )
  t.match(v13[1], { relation: 'lab.pg_toast.pg_toast_16385', index_scans: 0, dead_items_removed: 0 }, 'its TOAST table')
  const v14 = parseLegacyVerbose([
    notice('aggressively vacuuming "public.t"'),
    notice('table "t": removed 50 dead item identifiers in 3 pages'),
    notice(
      'table "t": found 50 removable, 900 nonremovable row versions in 7 out of 7 pages',
      '0 dead row versions cannot be removed yet, oldest xmin: 741'
    )
  ])
  t.match(
    v14[0],
    {
      relation: 'public.t',
      aggressive: true,
      index_scans: 0,
      dead_items_removed: 50,
      pages_scanned: 7,
      pages_skipped: 0
    },
    '14, a table without indexes: no index scan'
  )
  const cost = vacuumCost({ report: v14[0], before: null, after: null, phases: null, source: 'VACUUM VERBOSE' })
  t.equal(cost.wal_bytes, null, "no WAL figure from 14's VERBOSE")
  t.match(cost.unavailable.wal_bytes, /^needs PostgreSQL 15: the VACUUM VERBOSE of older majors/, 'and why')
  t.match(cost.unavailable.tuples_frozen, /^needs PostgreSQL 16: /, 'frozen tuples: 16')
})
