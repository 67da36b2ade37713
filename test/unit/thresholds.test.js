// --threshold without a server: the parser (config/thresholds.js) on good
// and bad expressions and on hostile text, the verdicts (summary/threshold-verdicts.js)
// on summaries made by buildSummary from recorded latencies, the running
// figures --threshold-abort reads against the end's, and the end table's rows.
import t from 'tap'
import { InputError } from '../../lib/errors.js'
import { exitCodeFor } from '../../lib/cli/exit-codes.js'
import { parseThreshold, parseThresholds, FIGURES, formatValue } from '../../lib/config/thresholds.js'
import { checkSetting } from '../../lib/config/run-setting-checks.js'
import {
  evaluateThresholds,
  figureValue,
  holds,
  failedForGood,
  auditVerdict,
  thresholdExitCode,
  thresholdFields,
  SETTLE_S,
  abortLine
} from '../../lib/summary/threshold-verdicts.js'
import { runningFigures } from '../../lib/summary/running-figures.js'
import { buildSummary } from '../../lib/summary/summary.js'
import { RequestStats } from '../../lib/metrics/request-stats.js'
import { LogHistogram } from '../../lib/metrics/log-histogram.js'
import { thresholdLines } from '../../lib/terminal/threshold-lines.js'
import { summaryTable } from '../../lib/terminal/summary-table.js'
import { PLAIN } from '../../lib/terminal/colours.js'
import { fuzz, hostileText } from '../helpers/fuzz.js'

const TYPES = ['insert_row', 'read_row']
const CLOSED = { types: TYPES, mode: /** @type {const} */ ('closed'), audits: true }

t.test("the grammar: [type:]figure op value[unit], limits in the summary's units", async t => {
  const cases = /** @type {[string, object][]} */ ([
    ['p99<5ms', { type: null, figure: 'p99', op: '<', limit: 5000, unit: 'us' }],
    ['insert_row:p95<=2ms', { type: 'insert_row', figure: 'p95', op: '<=', limit: 2000, unit: 'us' }],
    ['p99.9 < 1.5 s', { figure: 'p99.9', op: '<', limit: 1500000, unit: 'us' }],
    ['max<750us', { figure: 'max', limit: 750, unit: 'us' }],
    ['mean<=0.5ms', { figure: 'mean', op: '<=', limit: 500 }],
    ['P90<2MS', { figure: 'p90', limit: 2000 }],
    ['throughput>5000', { figure: 'throughput', op: '>', limit: 5000, unit: 'req/s' }],
    ['read_row:throughput>=100/s', { type: 'read_row', figure: 'throughput', op: '>=', limit: 100 }],
    ['unexpected_failures==0', { figure: 'unexpected_failures', op: '==', limit: 0, unit: 'count' }],
    ['failures<3', { figure: 'failed', limit: 3 }],
    ['insert_row:failed!=0', { type: 'insert_row', figure: 'failed', op: '!=', limit: 0 }],
    ['failed_rate<1%', { figure: 'failed_rate', limit: 0.01, unit: 'ratio' }],
    ['failed_rate<=0.05', { figure: 'failed_rate', limit: 0.05 }],
    ['timeouts==0', { figure: 'timeouts', limit: 0 }],
    ['reconnects<=2', { figure: 'reconnects', op: '<=', limit: 2 }],
    ['done>=100', { figure: 'done', limit: 100 }],
    ['audit==exact', { figure: 'audit', op: '==', limit: 'exact', unit: 'verdict' }],
    ['  audit == EXACT ', { expr: 'audit == EXACT', limit: 'exact' }]
  ])
  for (const [expr, expected] of cases) t.match(parseThreshold(expr, CLOSED), expected, expr)
  t.match(
    parseThreshold('lag_p99<10ms', { ...CLOSED, mode: 'open' }),
    { figure: 'lag_p99', limit: 10000 },
    'the schedule lag in the open loop'
  )
  t.match(parseThreshold('lag_max<1s', { ...CLOSED, mode: 'paced' }), { figure: 'lag_max' }, 'and of paced clients')
  t.match(parseThreshold('skipped==0', { ...CLOSED, mode: 'open' }), { figure: 'skipped' }, 'skipped in the open loop')
  t.match(
    parseThreshold('nosuchtype:p99<1ms'),
    { type: 'nosuchtype' },
    'types unchecked when the workload is not known'
  )
  const list = parseThresholds(['p99<5ms', 'audit==exact'], CLOSED)
  t.same(
    list.map(x => x.figure),
    ['p99', 'audit'],
    'a list in the order given'
  )
  t.same(parseThresholds('p99<5ms', CLOSED).length, 1, 'one flag: one threshold')
  t.same(
    checkSetting('thresholds', ['p50<1s'], 'flag', CLOSED).map((/** @type {any} */ x) => x.limit),
    [1e6],
    'through RUN_SETTINGS as --threshold'
  )
})

t.test('bad thresholds: one line, naming the expression and the problem', async t => {
  const cases = /** @type {[string, RegExp, object?][]} */ ([
    ['', /must be \[type:\]figure op value/],
    ['p99', /must be \[type:\]figure op value/],
    ['p99=5ms', /== compares/],
    ['p99<', /must be/],
    ['<5ms', /must be/],
    [':p99<5ms', /must be/],
    ['p99<5', /p99 is a latency: give its unit/],
    ['p99<5xs', /unit "xs" does not fit p99, a latency/],
    ['p99<-5ms', /p99 needs a number/],
    ['p99<5 ms ms', /p99 needs a number/],
    ['p98<5ms', /unknown figure "p98"; figures: p50, /],
    ['latency<5ms', /unknown figure "latency"/],
    ['delete_row:p99<5ms', /no request type "delete_row"; its types: insert_row, read_row/],
    ['insert_row:reconnects<1', /reconnects is a figure of the whole run/],
    ['insert_row:audit==exact', /audit is a figure of the whole run/],
    ['throughput>5ms', /unit "ms" does not fit throughput, requests per second/],
    ['done<1.5', /done is a count: the limit must be a whole number/],
    ['failed<3ms', /unit "ms" does not fit failed, a count/],
    ['failed_rate<150%', /failed_rate is at most 1/],
    ['failed_rate<1ms', /does not fit failed_rate, a fraction/],
    ['p99<1' + '9'.repeat(400) + 'ms', /too large/],
    ['audit<exact', /audit is compared with == or !=/],
    ['audit==lossy', /audit can be exact, not "lossy"/],
    ['lag_p99<5ms', /lag_p99 needs a schedule/],
    ['skipped==0', /skipped needs the open loop/, { mode: 'paced' }],
    ['audit==exact', /audits no acknowledged writes/, { audits: false }]
  ])
  for (const [expr, problem, context] of cases) {
    t.test(JSON.stringify(expr).slice(0, 60), async t => {
      const err = /** @type {InputError} */ (t.throws(() => parseThreshold(expr, { ...CLOSED, ...context })))
      t.type(err, InputError)
      t.equal(exitCodeFor(err), 2)
      t.match(err.message, /^--threshold "/, 'names the flag and what was given')
      t.match(err.message, problem)
      t.notMatch(err.message, /\n/, 'one line')
    })
  }
  t.throws(
    () => parseThresholds(['p99<5ms', ' p99 < 5ms'], CLOSED),
    /--threshold "p99 < 5ms" is given twice/,
    'the same condition twice'
  )
})

t.test('hostile text: parsed or refused in one line, quickly', async t => {
  const valid = [
    'p99<5ms',
    'insert_row:p95<=2ms',
    'throughput>5000',
    'unexpected_failures==0',
    'audit==exact',
    'failed_rate<1%',
    'p99.9<1.5s'
  ]
  await fuzz(
    t,
    '--threshold',
    hostileText(valid, {
      pieces: [
        'p',
        '99',
        '.9',
        '<',
        '<=',
        '>',
        '>=',
        '==',
        '!=',
        ':',
        'ms',
        'us',
        's',
        '%',
        '/s',
        'insert_row',
        'lag_',
        'audit',
        'exact'
      ]
    }),
    (/** @type {string} */ text) => parseThreshold(text, CLOSED),
    {
      runs: 3000,
      valid: (/** @type {any} */ value) =>
        typeof value.limit === 'string' || (Number.isFinite(value.limit) && value.limit >= 0)
          ? value.figure in FIGURES
            ? null
            : `figure ${value.figure}`
          : `limit ${value.limit}`
    }
  )
})

/**
 * Stats of two types with known latencies; insert_row: 1..1000 µs each once
 * and two failures; read_row: nothing.
 */
function knownStats() {
  const stats = new RequestStats(TYPES)
  for (let us = 1; us <= 1000; us++) {
    stats.start(0)
    stats.finish(0, us, us <= 998)
  }
  stats.lag.record(300)
  return stats
}

/** @param {RequestStats} stats @param {Record<string, unknown>} [extra] */
function summaryOf(stats, extra = {}) {
  return buildSummary({
    stats,
    elapsedS: 2,
    workload: 'manta',
    concurrency: 4,
    target: 'test',
    mix: 'insert_row=1',
    reconnects: 1,
    acknowledgedInserts: 998,
    acknowledgedMissing: 0,
    acknowledgedVanished: 0,
    serverVersion: '15',
    embedded: false,
    abandonedInFlight: false,
    cpuUsage: { user: 0, system: 0 },
    openLoop: { rate: 500, arrival: 'poisson', maxLagMs: null, skipped: 3 },
    ...extra
  })
}

t.test('figures read from the summary, percentiles it does not list from its histograms', async t => {
  const stats = knownStats()
  const summary = summaryOf(stats)
  const value = (/** @type {string} */ expr) => figureValue(summary, parseThreshold(expr, { types: TYPES }))
  t.equal(value('p99<1ms'), summary.latency_us.p99, "p99: the summary's")
  t.equal(value('insert_row:p50<1ms'), summary.requests.insert_row.latency_us.p50, "a type's p50: the summary's")
  const all = new LogHistogram()
  all.add(stats.latency[0])
  t.equal(value('p90<1ms'), Math.round(/** @type {number} */ (all.quantile(0.9))), 'p90 from the raw histogram')
  t.equal(
    value('insert_row:p99.9<1ms'),
    Math.round(/** @type {number} */ (all.quantile(0.999))),
    'p99.9 from the raw histogram'
  )
  t.ok(
    /** @type {number} */ (value('p90<1ms')) >= 900 && /** @type {number} */ (value('p90<1ms')) <= 1000,
    'p90 of 1..1000 µs is near 900 µs'
  )
  t.equal(value('max<1ms'), 1000)
  t.equal(value('mean<1ms'), summary.latency_us.mean)
  t.equal(value('read_row:p99<1ms'), null, 'a type with no request has no latency')
  t.equal(value('throughput>1'), 500, 'throughput: done over elapsed')
  t.equal(value('insert_row:throughput>1'), 500)
  t.equal(value('failed<1'), 2)
  t.equal(value('read_row:failed<1'), 0)
  t.equal(value('failed_rate<1%'), 0.002)
  t.equal(value('read_row:failed_rate<1%'), null, 'no rate of nothing')
  t.equal(value('done>0'), 1000)
  t.equal(value('reconnects==0'), 1)
  t.equal(value('skipped==0'), 3)
  t.equal(value('lag_p99<1ms'), summary.schedule_lag_us.p99)
  t.equal(value('audit==exact'), 'exact')
  t.equal(value('timeouts==0'), 0, "timeouts: the types' counts")
  t.equal(
    figureValue({ requests: { a: { done: 1 } } }, parseThreshold('timeouts==0')),
    null,
    'none in a summary without them'
  )
  t.equal(
    figureValue({ requests: { a: { timeouts: 2 }, b: { timeouts: 3 } } }, parseThreshold('timeouts<1')),
    5,
    'summed over the types'
  )
  t.equal(
    figureValue({ requests: { a: { timeouts: 2 }, b: { timeouts: 3 } } }, parseThreshold('b:timeouts<1')),
    3,
    "or one type's"
  )
})

t.test('pass or fail', async t => {
  const summary = summaryOf(knownStats())
  const results = evaluateThresholds(
    parseThresholds(
      [
        'p99<5ms',
        'p99<500us',
        'failed==2',
        'failed!=2',
        'throughput>=500',
        'throughput>500',
        'read_row:p99<1s',
        'audit==exact'
      ],
      { types: TYPES }
    ),
    summary
  )
  t.same(
    results.map(r => r.pass),
    [true, false, true, false, true, false, false, true]
  )
  t.same(
    Object.keys(results[0]),
    ['expr', 'type', 'figure', 'op', 'limit', 'unit', 'value', 'pass'],
    "the fields a summary's thresholds hold"
  )
  t.equal(holds(null, { op: '<', limit: 1 }), false, 'no value never holds')
  t.equal(holds('exact', { op: '!=', limit: 'exact' }), false)
  t.equal(thresholdExitCode({ thresholds: results }), 3, 'exit 3 when one fails')
  t.equal(thresholdExitCode({ thresholds: results.filter(r => r.pass) }), 0, 'exit 0 when all hold')
  t.equal(thresholdExitCode({}), 0, 'and without thresholds')
  t.equal(
    thresholdExitCode({
      thresholds: results.filter(r => r.pass),
      threshold_abort: { expr: 'x', value: 1, unit: 'count', at_s: 1 }
    }),
    3,
    'exit 3 when the run was stopped by one'
  )
})

t.test("the audit's verdict", async t => {
  t.equal(auditVerdict({ acknowledged_inserts: 5, acknowledged_missing: 0, acknowledged_vanished: 0 }), 'exact')
  t.equal(auditVerdict({ acknowledged_inserts: 5, acknowledged_missing: null }), 'not checked')
  t.equal(auditVerdict({ acknowledged_inserts: 5, acknowledged_missing: 1 }), 'missing')
  t.equal(auditVerdict({ acknowledged_inserts: 5, acknowledged_missing: 0, acknowledged_vanished: 2 }), 'vanished')
  t.equal(
    auditVerdict({ acknowledged_inserts: 0, acknowledged_missing: null, row_audit: {}, rows_missing: 0 }),
    'exact',
    "a batch workload's rows"
  )
  t.equal(
    auditVerdict({ acknowledged_inserts: 0, acknowledged_missing: null, row_audit: {}, rows_missing: null }),
    'not checked'
  )
  t.equal(
    auditVerdict({ acknowledged_inserts: 0, acknowledged_missing: null, row_audit: {}, rows_missing: 4 }),
    'missing'
  )
  t.equal(auditVerdict({ acknowledged_inserts: 0, acknowledged_missing: null }), null, 'nothing audited')
})

t.test("the running figures are the summary's, for the same stats", async t => {
  const stats = knownStats()
  const summary = summaryOf(stats)
  const running = runningFigures(stats, { elapsedS: 2, reconnects: 1, skipped: 3, scheduled: true })
  const thresholds = parseThresholds(
    Object.keys(FIGURES)
      .filter(f => f !== 'audit')
      .flatMap(f => {
        const spec = FIGURES[f]
        const limit = spec.kind === 'latency' ? '1ms' : spec.kind === 'ratio' ? '0.5' : '1'
        return [`${f}<${limit}`, ...(spec.perType ? [`insert_row:${f}<${limit}`, `read_row:${f}<${limit}`] : [])]
      }),
    { types: TYPES }
  )
  t.same(
    evaluateThresholds(thresholds, running),
    evaluateThresholds(thresholds, summary),
    `${thresholds.length} thresholds judged alike`
  )
  t.equal(
    runningFigures(stats, { elapsedS: 0, reconnects: 0, skipped: 0, scheduled: false }).throughput,
    null,
    'no rate at 0 s'
  )
})

t.test('--threshold-abort: failed for good, or judged once settled', async t => {
  const result = (/** @type {string} */ expr, /** @type {number | string | null} */ value) => ({
    ...parseThreshold(expr),
    value,
    pass: holds(value, parseThreshold(expr))
  })
  t.ok(failedForGood(result('done<100', 120), 1), 'a count past an upper limit cannot come back')
  t.ok(failedForGood(result('unexpected_failures==0', 1), 0.5), 'nor an unexpected failure')
  t.ok(failedForGood(result('max<10ms', 20000), 1), 'nor the max')
  t.ok(failedForGood(result('reconnects<2', 2), 1), 'a count at a strict upper limit has failed already')
  t.notOk(failedForGood(result('done==100', 50), 1), 'a count below an exact one may still reach it')
  t.notOk(failedForGood(result('done>1000', 120), 100), 'a count below a lower limit may still get there')
  t.notOk(failedForGood(result('failed!=0', 0), 100), 'nor a count that must move')
  t.notOk(failedForGood(result('p99<1ms', 5000), SETTLE_S - 1), 'a percentile before the load settled')
  t.ok(failedForGood(result('p99<1ms', 5000), SETTLE_S), 'and after')
  t.notOk(failedForGood(result('audit==exact', 'not checked'), 100), 'the audit only at the end')
  t.notOk(failedForGood(result('p99<1ms', 500), 100), 'nothing that holds')
  t.equal(
    abortLine({ expr: 'p99<1ms', value: 2345, unit: 'us', at_s: 5 }),
    'stopped at 5.0 s by --threshold-abort: p99<1ms failed (2.345 ms)'
  )
})

t.test('the end table: a row each, the verdict, and what stopped the run', async t => {
  const summary = summaryOf(knownStats())
  Object.assign(
    summary,
    thresholdFields(
      parseThresholds(['p99<5ms', 'insert_row:p99.9<100us', 'failed_rate<1%', 'audit==exact'], { types: TYPES }),
      summary,
      null
    )
  )
  const lines = thresholdLines(summary, PLAIN, 80)
  t.match(lines[1], /^threshold\s+limit\s+value\s+result$/)
  t.match(lines[2], /^p99<5ms\s+5 ms\s+[\d.]+ µs\s+pass$/)
  t.match(lines[3], /^insert_row:p99\.9<100us\s+100 µs\s+[\d.]+ ms\s+FAIL$/)
  t.match(lines[4], /^failed_rate<1%\s+1%\s+0\.2%\s+pass$/)
  t.match(lines[5], /^audit==exact\s+exact\s+exact\s+pass$/)
  t.equal(lines[6], 'thresholds: 1 of 4 failed (exit 3)')
  t.equal(lines.length, 7)
  t.ok(summaryTable(summary).includes('thresholds: 1 of 4 failed (exit 3)'), 'in the end table')
  summary.threshold_abort = { expr: 'insert_row:p99.9<100us', value: 999, unit: 'us', at_s: 5.2 }
  t.equal(
    thresholdLines(summary, PLAIN, 80).at(-1),
    'stopped at 5.2 s by --threshold-abort: insert_row:p99.9<100us failed (999 µs)'
  )
  t.same(thresholdLines({}, PLAIN, 80), [], 'nothing without thresholds')
  t.equal(formatValue(1500000, 'us'), '1.5 s')
  t.equal(formatValue(null, 'us'), '-')
  t.equal(formatValue(5000.04, 'req/s'), '5000 req/s')
})
