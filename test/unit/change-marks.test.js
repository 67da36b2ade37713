// A chart's mark at a moment the run changed names what moved on the
// chart first: the load's own series before the conditions the lab saw,
// since the label is cut short and a lock's moment holds several changes.
import t from 'tap'
import { changeMarks } from '../../lib/report/changes-section.js'

const level = (/** @type {number} */ median) => ({ median, low: median, high: median, n: 10 })
/**
 * @param {number} at
 * @param {string} metric
 * @param {number} before
 * @param {number} after
 */
const change = (at, metric, before, after) => ({
  at_s: at,
  metric,
  before: level(before),
  after: level(after),
  effect: before === 0 ? null : (after - before) / before,
  causes: [{ kind: 'lock_wait', label: '4 sessions waiting for a lock held by pid 3902 (lock-holder)', at_s: 15 }]
})

t.test('the load first, then the conditions, in a mark cut short', async t => {
  const run = /** @type {any} */ ({
    dir: '/nowhere',
    info: {},
    samples: [],
    events: [],
    t0: 0,
    summary: {
      changes: [
        change(15, 'condition:lock_wait', 0, 4),
        change(15.1, 'condition:xmin_horizon', 0, 12),
        change(16, 'condition:stall', 0, 1),
        change(16, 'throughput', 1400, 0)
      ]
    }
  })
  const [mark] = changeMarks(run)
  t.match(mark.label, /^changed: throughput/, `the throughput named first (${mark.label})`)
  t.match(mark.label, /lock/, 'then the conditions, as far as the label goes')
})
