// The end table's "what changed" block (lib/terminal/changes-lines.js):
// when the moments do not all fit in five lines, those whose throughput
// moved come first, then those that moved most, shown in time order.
import t from 'tap'
import { changesLines } from '../../lib/terminal/changes-lines.js'
import { PLAIN } from '../../lib/terminal/colours.js'

/** @param {number} at @param {string} metric @param {number | null} effect @param {string} cause */
const change = (at, metric, effect, cause) => ({
  at_s: at,
  metric,
  effect,
  before: { median: 100, low: 95, high: 105, n: 60 },
  after: { median: effect === null ? 0 : 100 * (1 + effect), low: 0, high: 200, n: 60 },
  causes: [{ kind: 'other', label: cause, at_s: at }]
})

t.test('when the moments do not all fit: the throughput changes first, then the largest, in time order', async t => {
  const summary = {
    changes: [
      change(10, 'p99_us:insert_row', 0.3, 'other processes took the CPU'),
      change(30, 'throughput', -1, '4 sessions waiting for a lock held by lock-holder'),
      change(50, 'throughput', null, 'the lock released'),
      change(70, 'p99_us:insert_row', -0.2, 'nothing seen'),
      change(90, 'p99_us:read_row', 0.1, 'nothing seen')
    ]
  }
  const lines = changesLines(summary, PLAIN, 200)
  t.equal(lines.length, 5, 'five lines at most')
  t.match(lines[1], /^ {2}at 10 s/, 'in time order')
  t.match(lines[2], /^ {2}at 30 s: .*lock-holder/, 'the stall behind the lock is shown')
  t.match(lines[3], /^ {2}at 50 s/)
  t.equal(lines[4], '  … 2 more in summary.json (changes)')
  const narrow = changesLines(summary, PLAIN, 60)
  t.ok(
    narrow.some(line => /lock-holder/.test(line)),
    'on a narrow terminal, two lines a moment: the stall still shown'
  )
  const few = changesLines({ changes: summary.changes.slice(0, 2) }, PLAIN, 200)
  t.equal(few.length, 3, 'all that fit are shown, no "more" line')
})
