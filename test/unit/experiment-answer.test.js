// The answer an experiment's report and the end of `pgloadgen experiment`
// open with (lib/report/answer-lead.js): the expected effect, the measured
// one with its interval, whether it appeared, and the method's measured
// error, from a summary whose figures are known.
import t from 'tap'
import { experimentAnswer, answerLines } from '../../lib/report/answer-lead.js'
import { answerLines as terminalLines, wrap } from '../../lib/terminal/answer-lines.js'
import { twoSampleEffect, oneSampleEffect, effectVerdict, welch } from '../../lib/results/t-interval.js'
import { studentQuantile, studentCdf } from '../../lib/results/student-t.js'
import { MEASURED } from '../../lib/report/answer-method.js'

/**
 * A variant of summary.json whose FREEZE wrote these WAL bytes and found these pages all-frozen.
 * @param {string} name
 * @param {number[]} wal
 * @param {number[]} frozen
 * @param {number[]} ratios
 */
function variant(name, wal, frozen, ratios) {
  return {
    name,
    repetitions: ratios.map(r => ({ degradation_ratio: r, action: { duration_s: 10 } })),
    vacuum_cost: {
      repetitions: wal.map((w, i) => ({ duration_s: 10, cost: { wal_bytes: w, vm_before: { all_frozen: frozen[i] } } }))
    }
  }
}

const summary = {
  variants: [
    variant('freeze-pg16', [80e6, 82e6, 81e6], [0, 0, 0], [0.2, 0.22, 0.21]),
    variant('freeze-pg17', [81e6, 80e6, 82e6], [1, 0, 1], [0.21, 0.2, 0.22]),
    variant('freeze-pg18', [60e6, 61e6, 59e6], [2400, 2500, 2450], [0.2, 0.21, 0.22])
  ]
}
const versus = ['freeze-pg16', 'freeze-pg17']
const plan = {
  question: "Does PostgreSQL 18's eager freezing leave the FREEZE less to do?",
  expect: [
    { figure: 'vacuum_wal_bytes', variant: 'freeze-pg18', versus, than: null, direction: 'lower' },
    { figure: 'all_frozen_before', variant: 'freeze-pg18', versus, than: null, direction: 'higher' }
  ]
}

t.test("an effect that is there appeared, with its interval and the method's measured error", async t => {
  const answer = experimentAnswer(plan, summary)
  if (!answer) throw new Error('no answer')
  t.equal(answer.question, plan.question)
  t.equal(answer.headline, 'Answer: yes: all 2 expected effects appeared.')
  t.same(
    answer.items.map(i => i.verdict),
    ['appeared', 'appeared']
  )
  // 60 MB against 81 MB: a ratio of geometric means of 0.74, its interval below 1
  t.match(
    answer.items[0].measured,
    /^Measured: 0\.741× against freeze-pg16 \(95 % interval 0\.7\d+× to 0\.7\d+×; 3 and 3/
  )
  t.match(answer.items[0].expected, /WAL the vacuum wrote lower on freeze-pg18 than on freeze-pg16 and freeze-pg17/)
  // pages frozen early: 0 on 16, so a difference in pages, not a ratio
  t.match(
    answer.items[1].measured,
    /\+2 450 pages against freeze-pg16 \(95 % interval \+2 3\d\d pages to \+2 5\d\d pages/
  )
  const lines = answerLines(answer)
  t.equal(lines[0], `Question: ${plan.question}`, 'the question first')
  t.equal(lines[1], answer.headline, 'then the answer')
  t.match(lines.at(-1), `${(MEASURED.coverageLow * 100).toFixed(1)} %`, 'the coverage measured on known cases')
})

t.test('no effect is "not shown"; the opposite is said; too few repetitions give no interval', async t => {
  const same = {
    ...plan,
    expect: [
      { figure: 'degradation_ratio', variant: 'freeze-pg18', versus: ['freeze-pg16'], than: null, direction: 'lower' }
    ]
  }
  t.equal(experimentAnswer(same, summary)?.headline, 'Answer: not shown: the expected effect did not appear.')
  const opposite = {
    ...plan,
    expect: [
      { figure: 'vacuum_wal_bytes', variant: 'freeze-pg18', versus: ['freeze-pg16'], than: null, direction: 'higher' }
    ]
  }
  t.equal(experimentAnswer(opposite, summary)?.items[0].verdict, 'opposite')
  const short = { variants: summary.variants.map(v => ({ ...v, repetitions: v.repetitions.slice(0, 2) })) }
  const ratio = {
    ...plan,
    expect: [{ figure: 'degradation_ratio', variant: 'freeze-pg18', versus: [], than: 1, direction: 'lower' }]
  }
  t.equal(experimentAnswer(ratio, summary)?.items[0].verdict, 'appeared', 'a ratio of 0.21 is below 1')
  const answer = experimentAnswer(ratio, short)
  t.equal(answer?.items[0].verdict, 'no interval')
  t.equal(answer?.headline, 'Answer: cannot tell: no expected effect could be measured with an interval.')
  const missing = { ...plan, expect: [{ ...plan.expect[0], figure: 'failsafes' }] }
  t.equal(experimentAnswer(missing, summary)?.items[0].verdict, 'not measured', 'a figure no repetition recorded')
  t.equal(experimentAnswer({}, summary), null, 'a plan with neither question nor expect has no answer')
})

t.test('the terminal opens with the same lines, wrapped and coloured by verdict', async t => {
  const answer = experimentAnswer(plan, summary)
  const lines = terminalLines(answer, { width: 60 })
  t.equal(lines[0], '')
  t.match(lines[1], /^Question: Does PostgreSQL 18/)
  t.ok(
    lines.every(line => line.length <= 60),
    'within the width'
  )
  t.equal(lines.join(' ').replace(/\s+/g, ' ').trim(), answerLines(/** @type {any} */ (answer)).join(' '))
  t.same(terminalLines(null), [])
  t.same(wrap('a bb ccc', 4), ['a bb', 'ccc'])
})

t.test("Student's t and Welch's interval against known values", async t => {
  t.equal(studentQuantile(0.975, 2).toFixed(3), '4.303')
  t.equal(studentQuantile(0.975, 30).toFixed(3), '2.042')
  t.equal(studentCdf(0, 5), 0.5)
  // equal variances, 3 a side: Welch's df is 4
  const { low, high, estimate } = welch([1, 2, 3], [4, 5, 6])
  t.equal(estimate, -3)
  t.equal(/** @type {number} */ (high).toFixed(3), (-3 + 2.776 * Math.sqrt(2 / 3)).toFixed(3))
  t.equal(/** @type {number} */ (low).toFixed(3), (-3 - 2.776 * Math.sqrt(2 / 3)).toFixed(3))
  t.equal(twoSampleEffect([2, 2, 2], [1, 1, 1]).kind, 'ratio')
  t.same(effectVerdict(twoSampleEffect([2, 2, 2], [1, 1, 1]), 'higher'), 'appeared')
  t.equal(twoSampleEffect([5, 6, 7], [0, 0, 0]).kind, 'difference', 'a 0 makes it a difference')
  t.equal(effectVerdict(oneSampleEffect([0.9, 1.1, 1.0], 1), 'lower'), 'not shown')
})
