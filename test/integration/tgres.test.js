// The tgres workload on PostgreSQL 15 and on the embedded 18: a run writes
// what Tgres writes (each ts row holds the points of the step its version
// names, for every series of its segment), Tgres's bloat factor is polled,
// exported and recorded as Tgres computes it, --fillfactor reaches ts, and
// bad options are refused before anything connects.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { CliRun, runCli, lines, sleep } from '../helpers/cli.js'
import { createTestDatabase, listTables, query, sessionsOf } from '../helpers/pg.js'
import { startEmbedded, tempDataDir } from '../helpers/embedded.js'
import { scrape, sampleValue } from '../helpers/prom.js'

const BOUNDED = ['-d', '2', '--connect-timeout', '2', '-p', '0']

// The value the generator writes for a series (0-based) at a step (data
// time / step since the epoch): a sinusoid, rounded to thousandths. The
// angle per step is computed first, as the generator does: multiplying in
// another order can change the last bit of the angle, and so the rounding
// of a value that falls on a half-thousandth.
const RADIANS_PER_STEP = (2 * Math.PI) / 360
const expectedValue = (/** @type {number} */ series, /** @type {number} */ step) =>
  Math.round((50 + 40 * Math.sin(step * RADIANS_PER_STEP + series)) * 1000) / 1000

/**
 * The step the run wrote first, from the line its setup logs.
 * @param {string} stderr
 * @param {number} stepMs
 */
function firstStepOf(stderr, stepMs) {
  const found = /data time starts at (\S+) /.exec(stderr)
  if (found === null) throw new Error(`no "data time starts at" in: ${stderr}`)
  return Math.round(Date.parse(found[1]) / stepMs)
}

/**
 * Checks every ts row of the bundle of `slots` slots against the points
 * the generator writes and against each segment's state. Each element's
 * state (rra_state.latest) names the last step written to it; each element
 * in ts, by its slot and version, names a step of the last two passes of
 * the ring up to that one, and holds that step's value of its series. The
 * newest step found in ts for an element is its state's step: the state
 * never went back behind its points, nor ahead of them (a unit's two
 * UPDATEs commit together; a failed write in the ring's first pass, whose
 * row is inserted apart, or one cut off and applied late by the server,
 * may leave its slice a step off: one slice a failed write at most). The
 * steps written add up to the writes and points the summary counts, from
 * the first step the run logged.
 * @param {any} t
 * @param {string} url
 * @param {{ series: number, width: number, slots: number, slice?: number }} shape
 * @param {{ summary: any, stderr: string }} run
 */
async function checkRing(t, url, { series, width, slots, slice = width }, { summary, stderr }) {
  const [bundle] = (await query(url, 'SELECT id, step_ms, width FROM rra_bundle WHERE size = $1', [slots])).rows
  t.equal(bundle.width, width, 'the bundle has the segment width')
  const firstStep = firstStepOf(stderr, bundle.step_ms)
  const { rows: states } = await query(
    url,
    'SELECT seg, array(SELECT (extract(epoch FROM l) * 1000)::float8 FROM unnest(latest) AS l) AS ms ' +
      'FROM rra_state WHERE rra_bundle_id = $1 ORDER BY seg',
    [bundle.id]
  )
  // by segment, by element: the step its state names (null: never written)
  const latest = states.map(row =>
    row.ms.map((/** @type {number | null} */ ms) => (ms === null ? null : Math.round(ms / bundle.step_ms)))
  )
  const newest = latest.map(steps => steps.map(() => -Infinity))
  const { rows } = await query(url, 'SELECT seg, i, dp, ver FROM ts WHERE rra_bundle_id = $1 ORDER BY seg, i', [
    bundle.id
  ])
  const segments = Math.ceil(series / width)
  t.equal(latest.length, segments, `a state row for every segment (${segments})`)
  t.equal(
    rows.length,
    segments * slots,
    `a row for every slot of every segment (${segments} × ${slots}): the ring went round`
  )
  let points = 0
  const wrong = []
  for (const row of rows) {
    const segmentWidth = Math.min(width, series - row.seg * width)
    if (row.dp.length !== segmentWidth || row.ver.length !== segmentWidth) {
      wrong.push(`(${row.seg}, ${row.i}): ${row.dp.length} values, ${row.ver.length} versions`)
    }
    row.dp.forEach((/** @type {number} */ value, /** @type {number} */ k) => {
      points++
      const last = latest[row.seg]?.[k]
      if (last === null || last === undefined) {
        wrong.push(`(${row.seg}, ${row.i})[${k + 1}]: its state names no step`)
        return
      }
      // the steps of this slot in the last two passes of the ring, up to the
      // state's, and the step after the state's (a write that failed half-way)
      const latestAtSlot = last - ((((last - row.i) % slots) + slots) % slots)
      const steps = [latestAtSlot, latestAtSlot - slots]
      if ((last + 1) % slots === row.i) steps.unshift(last + 1)
      const step = steps.find(s => Math.floor(s / slots) % 32767 === row.ver[k])
      if (step === undefined) {
        wrong.push(`(${row.seg}, ${row.i})[${k + 1}]: version ${row.ver[k]} is of no pass up to step ${last}`)
      } else if (value !== expectedValue(row.seg * width + k, step)) {
        wrong.push(
          `(${row.seg}, ${row.i})[${k + 1}] = ${value}, not ${expectedValue(row.seg * width + k, step)} of step ${step}`
        )
      } else newest[row.seg][k] = Math.max(newest[row.seg][k], step)
    })
  }
  t.same(
    wrong.slice(0, 5),
    [],
    `every point in ts is the value its series had at the step its version names (${points} points)`
  )
  // by slice of a segment: the step its state names, the newest in ts, and the writes it took
  let writes = 0
  let pointsWritten = 0
  const offStep = []
  const mixed = []
  const slices = []
  for (const [seg, steps] of latest.entries()) {
    for (let from = 0; from < steps.length; from += slice) {
      const last = /** @type {number} */ (steps[from])
      const count = Math.min(slice, steps.length - from)
      const same = steps.slice(from, from + count).every(s => s === last)
      const found = newest[seg].slice(from, from + count)
      if (!same) mixed.push(`segment ${seg}, slice at ${from + 1}`)
      if (found.some(s => s !== last)) {
        offStep.push(`segment ${seg} slice at ${from + 1}: state ${last}, ts ${found.join(' ')}`)
      }
      slices.push({ seg, last })
      writes += last - firstStep + 1
      pointsWritten += (last - firstStep + 1) * count
    }
  }
  const failed = summary.requests.flush_segment.failed
  t.ok(
    offStep.length <= failed,
    `each slice's state names the newest step in ts (${offStep.length} a step off, ${failed} writes failed) ` +
      offStep.slice(0, 3).join('; ')
  )
  t.same(mixed, [], "a slice's elements all name one step")
  // a segment's slices written in order: all at one step, or the first ones a step ahead of the rest
  const disorder = latest.flatMap((_, seg) => {
    const at = slices.filter(s => s.seg === seg).map(s => s.last)
    const ordered = at.every((step, k) => k === 0 || step <= at[k - 1]) && at[0] - at[at.length - 1] <= 1
    return ordered ? [] : [`segment ${seg}: ${at.join(' ')}`]
  })
  t.same(disorder, [], "each segment's slices are at one step, or the first ones a step ahead")
  const steps = slices.map(s => s.last)
  t.ok(
    Math.max(...steps) - Math.min(...steps) < slots,
    `the segments' data times are less than a pass of the ring apart (${Math.min(...steps)}…${Math.max(...steps)})`
  )
  t.equal(
    summary.requests.flush_segment.done,
    writes,
    `the writes done are the steps each slice's state moved (${writes})`
  )
  t.equal(summary.points_written, pointsWritten, `the points written are those of the steps each element's state moved`)
}

t.test('PostgreSQL 15', async t => {
  const bad = await createTestDatabase(t, 'tgres_bad')
  const db = await createTestDatabase(t, 'tgres')

  t.test('bad options: one line, exit 2, nothing touched', async t => {
    const cases = [
      { args: ['--series', '0'], problem: /--series: must be at least 1, got 0/ },
      {
        args: ['--segment-width', '808'],
        problem:
          /--segment-width 808: a ts row would take 8168 bytes uncompressed, more than the 8160 bytes .*at most 807/
      },
      { args: ['--step', 'often'], problem: /--step: expected a duration like 10s/ },
      { args: ['--step', '1.5ms'], problem: /--step: a whole number of milliseconds/ },
      { args: ['--slots', '0'], problem: /--slots: must be at least 1, got 0/ },
      { args: ['--fillfactor', '9'], problem: /--fillfactor: must be at least 10, got 9/ },
      { args: ['--slice', '201'], problem: /--slice 201: more than the 200 series of a segment/ }
    ]
    const results = await Promise.all(
      cases.map(c => runCli(['run', bad.url, '-w', 'tgres', ...c.args, ...BOUNDED], { t }))
    )
    for (const [k, c] of cases.entries()) {
      const result = results[k]
      t.equal(result.code, 2, `${c.args.join(' ')}: exit 2 (stderr: ${result.stderr})`)
      t.equal(result.stdout, '', `${c.args.join(' ')}: nothing on stdout`)
      t.equal(lines(result.stderr).length, 1, `${c.args.join(' ')}: one line: ${result.stderr.trim()}`)
      t.match(result.stderr, c.problem, `${c.args.join(' ')}: names the problem`)
    }
    await sleep(300)
    t.equal((await sessionsOf(bad.adminUrl, bad.name)).sessions, 0, 'no session was opened on the database')
    t.same(await listTables(bad.url), [], 'no table was made')
  })

  t.test("a run writes Tgres's layout; the statistics are exported and recorded", async t => {
    const recordDir = path.join(await tempDataDir(t), 'run')
    // 450 series: segments of 200, 200 and 50; a ring of 12 slots goes round many times in 3 s
    const shape = { series: 450, width: 200, slots: 12 }
    const result = await runCli(
      [
        'run',
        db.url,
        '-w',
        'tgres',
        '--series',
        '450',
        '--slots',
        '12',
        '--fillfactor',
        '70',
        '-c',
        '3',
        '-d',
        '3',
        '--json',
        '-p',
        '0',
        '--stats-interval',
        '1',
        '--record',
        recordDir
      ],
      { t }
    )
    t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
    const summary = result.summary
    t.equal(summary.unexpected_failures, 0, 'no failure')
    t.notMatch(result.stderr, /fillfactor/, 'a fresh ts takes the fillfactor without a word')
    const writes = summary.requests.flush_segment.done
    t.ok(writes > 3 * 12, `the ring went round (${writes} writes of 3 per step, 12 steps a pass)`)
    t.equal(summary.rows_written, 3 * 12, 'a row written for each slot of each segment, once')
    t.equal(summary.rows_missing, 0, 'the rows written are the rows ts gained')
    // a step is three writes, one a segment: 200, 200 and 50 points
    await checkRing(t, db.url, shape, result)

    const {
      rows: [options]
    } = await query(db.url, "SELECT reloptions FROM pg_class WHERE oid = 'ts'::regclass")
    t.same(options.reloptions, ['fillfactor=70'], 'ts has the fillfactor')
    // the third segment's rows are a quarter as wide
    const {
      rows: [pages]
    } = await query(
      db.url,
      'SELECT max(n)::int AS most FROM (SELECT count(*) AS n FROM ts WHERE seg < 2 GROUP BY ' +
        '(ctid::text::point)[0]) AS per_page'
    )
    t.ok(
      pages.most <= 3,
      `no page holds more than 3 full rows (1.7 kB) at fillfactor 70, where 4 fit at 100 (most: ${pages.most})`
    )

    const samples = lines(await readFile(path.join(recordDir, 'samples.ndjson'), 'utf8')).map(line => JSON.parse(line))
    const share = samples
      .map(s => s.workload?.pgloadgen_workload_tgres_hot_update_share)
      .filter(v => typeof v === 'number')
    t.ok(
      share.length > 0 && share.every(v => v >= 0 && v <= 1),
      `the samples hold the HOT share of ts's updates (${share.join(' ')})`
    )
    t.ok(
      samples.some(s => typeof s.workload?.pgloadgen_workload_tgres_autovacuum_runs === 'number'),
      'and the autovacuums of ts'
    )
    t.ok(
      samples.every(s => s.pg?.table === 'ts'),
      "the recorded PostgreSQL figures are ts's"
    )
  })

  t.test("the bloat factor is Tgres's formula, on /metrics and in the samples", async t => {
    // a ts that nothing changes while the reads run: vacuumed, analysed (reltuples), autovacuum off
    await query(db.url, 'VACUUM ANALYZE ts')
    await query(db.url, 'ALTER TABLE ts SET (autovacuum_enabled = off)')
    const {
      rows: [figures]
    } = await query(
      db.url,
      "SELECT pg_total_relation_size('ts')::float8 AS bytes, reltuples::float8 AS tuples FROM pg_class WHERE oid = " +
        "'ts'::regclass"
    )
    const expected = figures.bytes / (Math.trunc(figures.tuples) * (200 * 8 + 447)) - 1
    const recordDir = path.join(await tempDataDir(t), 'reads')
    const run = new CliRun(
      [
        'run',
        db.url,
        '-w',
        'tgres',
        '--series',
        '450',
        '--slots',
        '12',
        '--fillfactor',
        '70',
        '--mix',
        'read_series=1',
        '-c',
        '2',
        '-d',
        '3',
        '--json',
        '-p',
        '0',
        '--stats-interval',
        '1',
        '--record',
        recordDir
      ],
      { t }
    )
    const metricsUrl = await run.metricsUrl()
    await run.waitForStderr(/running tgres/)
    await sleep(1500)
    const exported = sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_workload_tgres_bloat_ratio')
    const result = await run.exited
    t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
    t.equal(result.summary.unexpected_failures, 0, 'no failure')
    const reads = result.summary.requests.read_series
    t.ok(
      reads.done > 0 && reads.not_found === 0,
      `every read of a series' ring found its slots of the expected versions (${reads.done} reads)`
    )
    t.ok(
      Math.abs(/** @type {number} */ (exported) - expected) < 1e-9,
      `on /metrics: ${exported}, computed here: ${expected}`
    )
    const samples = lines(await readFile(path.join(recordDir, 'samples.ndjson'), 'utf8')).map(line => JSON.parse(line))
    const recorded = samples.map(s => s.workload?.pgloadgen_workload_tgres_bloat_ratio)
    t.ok(
      recorded.length > 0 && recorded.every(v => Math.abs(v - expected) < 1e-9),
      `in every sample: ${recorded.join(' ')}`
    )
    await query(db.url, 'ALTER TABLE ts RESET (autovacuum_enabled)')
  })

  t.test('another fillfactor on a ts that holds rows is set, and said', async t => {
    const result = await runCli(
      [
        'run',
        db.url,
        '-w',
        'tgres',
        '--series',
        '450',
        '--slots',
        '12',
        '--fillfactor',
        '90',
        '-c',
        '1',
        '-t',
        '1',
        '-d',
        '10',
        '--json',
        '-p',
        '0',
        '--no-pg-stats'
      ],
      { t }
    )
    t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
    t.match(
      result.stderr,
      /ts had fillfactor 70, now 90: rows written from now on are placed by it; .*VACUUM FULL ts/,
      'a warning says what changed and what it means'
    )
    const {
      rows: [options]
    } = await query(db.url, "SELECT reloptions FROM pg_class WHERE oid = 'ts'::regclass")
    t.same(options.reloptions, ['fillfactor=90'], 'ts has the new fillfactor')
  })

  t.test('another segment width on the same archives is refused', async t => {
    const result = await runCli(
      [
        'run',
        db.url,
        '-w',
        'tgres',
        '--series',
        '450',
        '--slots',
        '12',
        '--fillfactor',
        '90',
        '--segment-width',
        '100',
        ...BOUNDED
      ],
      { t }
    )
    t.equal(result.code, 2, `exit 2; stderr: ${result.stderr}`)
    t.match(
      lines(result.stderr).at(-1),
      /--segment-width 100: ts already holds .* in segments of 200; give --segment-width 200, or --reset/,
      'names the width the table has'
    )
  })

  t.test('the row sizes the width limits rest on, as the server stores them', async t => {
    const { tsRowBytes, widestInlineWidth } = await import('../../lib/workloads/tgres/layout.js')
    const row = (/** @type {string} */ table, /** @type {number} */ width) =>
      query(
        db.url,
        `INSERT INTO ${table} (rra_bundle_id, seg, i, dp, ver)
      SELECT 1, $1, 0, array_agg(random()), array_fill(7::smallint, ARRAY[$1::int]) FROM generate_series(1, $1::int)`,
        [width]
      )
    // stored as they are: neither compressed nor out of line
    await query(
      db.url,
      'CREATE TABLE ts_plain (LIKE ts); ALTER TABLE ts_plain ALTER dp SET STORAGE PLAIN, ALTER ver SET STORAGE PLAIN'
    )
    for (const width of [1, 200, 807]) await row('ts_plain', width)
    const { rows } = await query(
      db.url,
      'SELECT seg AS width, pg_column_size(p.*) AS bytes FROM ts_plain AS p ORDER BY seg'
    )
    // arrays under 127 bytes get a 1-byte header and no padding: the formula is exact from width 52 up, above below
    for (const { width, bytes } of rows)
      t.ok(
        width >= 52 ? bytes === tsRowBytes(width) : bytes <= tsRowBytes(width),
        `width ${width}: a row of ${bytes} bytes (formula: ${tsRowBytes(width)})`
      )
    await t.rejects(
      row('ts_plain', 808),
      /row is too big: size 8168, maximum size 8160/,
      'width 808: too big for a page, as configure says'
    )
    // as ts stores them: ver compressed, and dp out of line once the row is still too wide
    for (const width of [widestInlineWidth(), widestInlineWidth() + 1]) {
      await query(db.url, `CREATE TABLE ts_${width} (LIKE ts)`)
      await row(`ts_${width}`, width)
    }
    const toast = async (/** @type {number} */ width) =>
      Number(
        (
          await query(
            db.url,
            `SELECT pg_relation_size(reltoastrelid) AS bytes FROM pg_class WHERE oid = 'ts_${width}'::regclass`
          )
        ).rows[0].bytes
      )
    t.equal(await toast(widestInlineWidth()), 0, `width ${widestInlineWidth()}: the row stays in the heap`)
    t.ok((await toast(widestInlineWidth() + 1)) > 0, `width ${widestInlineWidth() + 1}: dp goes to TOAST`)
    await query(db.url, `DROP TABLE ts_plain, ts_${widestInlineWidth()}, ts_${widestInlineWidth() + 1}`)
  })
})

t.test('PostgreSQL 18 (embedded)', async t => {
  const embedded = await startEmbedded(t)
  // writes of 64 series: slices 1-64, 65-128, 129-192 and 193-200 of each segment
  const shape = { series: 400, width: 200, slots: 10, slice: 64 }
  const result = await runCli(
    [
      'run',
      embedded.url,
      '-w',
      'tgres',
      '--series',
      '400',
      '--slots',
      '10',
      '--slice',
      '64',
      '-c',
      '2',
      '-d',
      '3',
      '--json',
      '-p',
      '0',
      '--no-pg-stats'
    ],
    { t }
  )
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  t.equal(result.summary.unexpected_failures, 0, 'no failure')
  t.equal(result.summary.rows_missing, 0, 'the rows written are the rows ts gained')
  t.equal(result.summary.rows_written, 2 * 10, 'a row for each slot of each segment')
  // a step's eight writes go round the segments: 64, 64 (one of each), 64, 64, 64, 64, 8, 8
  await checkRing(t, embedded.url, shape, result)
  const {
    rows: [table]
  } = await query(embedded.url, "SELECT reloptions FROM pg_class WHERE oid = 'ts'::regclass")
  t.equal(table.reloptions, null, "fillfactor 100 is the table's default: no option set")
})
