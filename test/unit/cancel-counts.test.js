// The cancels and the refused connections, from the counters the clients
// increment (RequestStats) to what a reader sees: the summary's fields, the
// lines under the end table, the progress line of a period, and a warm-up
// that leaves its own counts out. No server.
import t from 'tap'
import { RequestStats, CANCELS_GAVE_UP, CANCELS_SENT, CANCELS_SUCCEEDED } from '../../lib/metrics/request-stats.js'
import { PeriodStats } from '../../lib/metrics/period-stats.js'
import { buildSummary } from '../../lib/summary/summary.js'
import { markWarmup, statsAfterWarmup } from '../../lib/summary/warmup.js'
import { summaryTable } from '../../lib/terminal/summary-table.js'
import { progressLine } from '../../lib/terminal/progress-line.js'

/** @param {RequestStats} stats */
function summaryOf(stats) {
  return buildSummary({
    stats,
    elapsedS: 10,
    workload: 'pgbench',
    concurrency: 4,
    target: 'postgres://u@h/d',
    mix: 'fast=9,slow=1',
    reconnects: 1,
    acknowledgedInserts: 0,
    acknowledgedMissing: null,
    serverVersion: '15.20',
    embedded: false,
    abandonedInFlight: false,
    cpuUsage: { user: 0, system: 0 },
    openLoop: null
  })
}

/**
 * Stats of a run whose slow requests timed out: 7 cancels sent, 6 ended on
 * the server, 1 gave up; 3 connection attempts refused.
 */
function statsWithCancels() {
  const stats = new RequestStats(['fast', 'slow'])
  for (let i = 0; i < 90; i++) {
    stats.start(0)
    stats.finish(0, 200, true)
  }
  for (let i = 0; i < 7; i++) {
    stats.start(1)
    stats.timeouts[1]++
    stats.cancels[CANCELS_SENT]++
    stats.cancels[i < 6 ? CANCELS_SUCCEEDED : CANCELS_GAVE_UP]++
    stats.finish(1, 300000, false)
    stats.error('request timed out after 300 ms; cancelled on the server', false)
  }
  stats.refusals[0] += 3
  return stats
}

t.test('the summary counts the cancels and the refusals', async t => {
  const summary = summaryOf(statsWithCancels())
  t.same(summary.cancels, { sent: 7, succeeded: 6, gave_up: 1 })
  t.equal(summary.refused_connections, 3)
  t.equal(summary.timeouts, 7)
})

t.test('the end table says them under the failures', async t => {
  const lines = summaryTable(summaryOf(statsWithCancels()))
  t.ok(lines.includes('timeouts: 7 requests got no answer within the request timeout'), 'the timeouts')
  t.ok(lines.includes('cancels: 7 sent, 6 ended on the server (kept), 1 past the grace (replaced)'), 'the cancels')
  t.ok(lines.includes('refused: 3 connection attempts refused by the server (too many)'), 'the refusals')
  const quiet = summaryTable(summaryOf(new RequestStats(['fast', 'slow'])))
  t.notOk(
    quiet.some(line => /^(cancels|refused|timeouts):/.test(line)),
    'a run without any says nothing of them'
  )
})

t.test('a progress line shows the period’s cancels and refusals, and only then', async t => {
  const stats = new RequestStats(['fast', 'slow'])
  const periods = new PeriodStats(stats, 0)
  const shape = { connections: 3, concurrency: 4, scheduled: false, openLoop: false }
  const quiet = progressLine(periods.next(1000, 0), shape)
  t.notMatch(quiet, /cancelled|refused/)
  stats.cancels[CANCELS_SENT] += 2
  stats.refusals[0] += 5
  const busy = progressLine(periods.next(2000, 0), shape)
  t.match(busy, /, 2 cancelled, 5 connections refused$/)
  t.notMatch(progressLine(periods.next(3000, 0), shape), /cancelled|refused/, 'the next period had none')
})

t.test('a warm-up keeps its own cancels and refusals out of the figures after it', async t => {
  const stats = statsWithCancels()
  const mark = markWarmup(stats, { reconnects: 0, skipped: 0 }, 5, { user: 0, system: 0 })
  stats.cancels[CANCELS_SENT] += 2
  stats.cancels[CANCELS_SUCCEEDED] += 2
  stats.refusals[0] += 1
  const after = summaryOf(statsAfterWarmup(stats, mark))
  t.same(after.cancels, { sent: 2, succeeded: 2, gave_up: 0 })
  t.equal(after.refused_connections, 1)
})
