// The experiment report's honest statistics, on experiment directories made
// up second by second (test/fixtures/report/vacuum.js), where every
// repetition's ratios are known: the confidence intervals in summary.json
// and on the page, the verdicts (Welch's interval of the ratio) for
// variants that differ and that do not,
// the flag on "during" windows shorter than 30 samples, the machine's noise
// beside the effect, and what the report says with fewer than 3
// repetitions. No server, no browser: fast.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { writeExperiment } from '../fixtures/report/synthetic.js'
import { vacuumVariant } from '../fixtures/report/vacuum.js'
import { buildReport, writeReport } from '../../lib/report/index.js'
import { verdictLines } from '../../lib/results/statistics.js'
import { experimentSummaryProblems, readExperimentSummary } from '../helpers/summary-schema.js'

const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-report-verdicts-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

const BEFORE = { throughputs: [1000, 1100, 900], p99s: [2000, 2200, 1800] }

// vacuum (the baseline, 30 s during windows), freeze (throughput clearly
// worse, p99 overlapping; 5 s during windows), light (clearly better
// throughput, an effect within the noise)
const dir = path.join(work, 'three')
await writeExperiment(dir, {
  name: 'statistics-test',
  description: 'known ratios, three repetitions',
  workload: 'manta',
  variants: [
    vacuumVariant({ name: 'vacuum', ratios: [0.8, 0.82, 0.81], p99Ratios: [1.5, 1.6, 1.55], duringS: 30, ...BEFORE }),
    vacuumVariant({ name: 'freeze', ratios: [0.6, 0.62, 0.61], p99Ratios: [1.5, 1.7, 1.6], duringS: 5, ...BEFORE }),
    vacuumVariant({ name: 'light', ratios: [0.95, 0.97, 0.96], p99Ratios: [1.05, 1.1, 1.15], duringS: 30, ...BEFORE })
  ]
})

/** @param {string} html */
const text = html =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')

t.test('summary.json: the intervals, the noise, the flags and the verdicts', async t => {
  const written = await writeReport(dir)
  t.ok(written.summary, 'an experiment writes summary.json')
  const summary = await readExperimentSummary(/** @type {string} */ (written.summary))
  const [vacuum, freeze, light] = summary.variants
  t.same(
    freeze.repetitions.map((/** @type {any} */ r) => r.degradation_ratio),
    [0.6, 0.62, 0.61],
    "the fixture's ratios"
  )
  t.same(
    freeze.repetitions.map((/** @type {any} */ r) => r.samples.during),
    [5, 5, 5],
    'its during windows: 5 samples'
  )

  const ci = freeze.statistics.degradation_ratio
  t.equal(ci.n, 3)
  t.equal(ci.low, 0.6, 'freeze: the interval of its throughput ratio, low')
  t.equal(ci.high, 0.62, 'high')
  t.equal(ci.mean, 0.61, 'mean')
  t.equal(ci.resamples, 10000)
  t.equal(ci.seed, 13)
  t.equal(ci.distinct_resamples, 10)
  t.same(
    [vacuum.statistics.p99_ratio.low, vacuum.statistics.p99_ratio.high],
    [1.5, 1.6],
    "vacuum: its p99 ratio's interval"
  )

  t.equal(vacuum.statistics.noise.throughput_before.cv, 0.1, 'noise: CV of the before windows, 900 / 1000 / 1100 req/s')
  t.equal(vacuum.statistics.noise.p99_before.cv, 0.1, 'and of their p99')
  t.same(
    freeze.statistics.effect.degradation_ratio,
    { size: 0.39, noise: 0.1, above_noise: true },
    'freeze: a 39 % effect, above twice the noise'
  )
  t.same(
    light.statistics.effect.degradation_ratio,
    { size: 0.04, noise: 0.1, above_noise: false },
    'light: a 4 % effect, within it'
  )

  t.same(
    freeze.statistics.short_during.map((/** @type {any} */ s) => s.samples),
    [5, 5, 5],
    'freeze: every during window flagged'
  )
  t.same(vacuum.statistics.short_during, [], 'vacuum: 30 samples, not flagged')

  t.same(
    freeze.statistics.ratios,
    { degradation_ratio: [0.6, 0.62, 0.61], p99_ratio: [1.5, 1.7, 1.6] },
    'the ratios the verdicts are computed from'
  )

  /** @type {Array<{ metric: string, variant: string, verdict: string, text: string, effect: any }>} */
  const comparisons = summary.comparisons
  const find = (/** @type {string} */ metric, /** @type {string} */ variant) =>
    comparisons.find(c => c.metric === metric && c.variant === variant)
  t.match(
    find('degradation_ratio', 'freeze')?.text,
    /^throughput during \/ before: freeze is worse than vacuum \(Welch's 95 % interval of the ratio freeze \/ vacuum, 0\.7\d+ to 0\.7\d+, excludes 1\)$/
  )
  t.match(
    find('degradation_ratio', 'freeze')?.effect,
    { kind: 'ratio', none: 1, n: [3, 3] },
    'the interval the verdict rests on'
  )
  t.match(
    find('degradation_ratio', 'light')?.text,
    /^throughput during \/ before: vacuum is worse than light \(Welch's 95 % interval of the ratio light \/ vacuum, 1\.\d+ to 1\.\d+, excludes 1\)$/
  )
  t.match(
    find('p99_ratio', 'freeze')?.text,
    /^p99 latency during \/ before: cannot tell freeze and vacuum apart \(Welch's 95 % interval of the ratio freeze \/ vacuum, 0\.\d+ to 1\.\d+, holds 1\)$/
  )
  t.equal(find('p99_ratio', 'light')?.verdict, 'better', 'light: a lower p99 ratio, [1.05, 1.15] against [1.5, 1.6]')
  t.ok(
    comparisons.every(c => c.variant !== 'vacuum'),
    'each variant against the first'
  )
  t.match(
    summary.statistics_method,
    { interval: /percentile bootstrap/, verdict: /Welch's 95 % interval[\s\S]*min - max/ },
    'the method is written down'
  )

  const lines = verdictLines(summary)
  t.ok(
    lines.includes(/** @type {string} */ (find('degradation_ratio', 'freeze')?.text)),
    'the text summary has the verdicts'
  )
  t.ok(lines.includes('freeze: rep-1: during window: 5 samples < 30: too short to trust'), 'and the short windows')
})

t.test('the page: the intervals, the verdicts, the flag, the noise', async t => {
  const { html } = await buildReport(dir)
  const table = /<table id="comparison">[\s\S]*?<\/table>/.exec(html)?.[0] ?? ''
  t.ok(table, 'the comparison table')
  const row = (/** @type {string} */ name) =>
    text(new RegExp(`<tr data-variant="${name}">[\\s\\S]*?</tr>`).exec(table)?.[0] ?? '')
  t.match(row('freeze'), '95 % CI 0.60× – 0.62×', 'freeze: its interval in the table')
  t.match(row('freeze'), 'min – max 0.60× – 0.62×', 'and its min – max')
  t.match(row('vacuum'), '95 % CI 1.50× – 1.60×', "vacuum: its p99 ratio's interval")
  t.match(
    row('freeze'),
    'during window: 5, 5, 5 samples < 30: too short to trust',
    'freeze: the short during windows flagged'
  )
  t.notMatch(row('vacuum'), 'too short', 'vacuum: not flagged')
  t.match(row('vacuum'), '±10.0 %', 'the noise beside the effect')
  t.match(row('freeze'), 'effect 39.0 % > 2× noise', 'an effect above the noise')
  t.match(row('light'), 'effect 4.0 % ≤ 2× noise: not clearly above it', 'an effect within it')
  t.match(row('vacuum'), 'baseline', 'the first variant is the baseline')
  t.match(
    row('freeze'),
    /worse cannot tell apart/,
    'freeze against vacuum: worse throughput ratio, p99 cannot tell apart'
  )
  t.match(row('light'), /better better/, 'light: better on both')

  const verdicts = text(/<ul class="verdicts" id="verdicts">[\s\S]*?<\/ul>/.exec(html)?.[0] ?? '')
  t.match(
    verdicts,
    /throughput during \/ before: freeze is worse than vacuum \(Welch's 95 % interval of the ratio freeze \/ vacuum, \S+ to \S+, excludes 1\)/,
    'the verdict in words'
  )
  t.match(
    verdicts,
    /p99 latency during \/ before: cannot tell freeze and vacuum apart \(Welch's 95 % interval of the ratio freeze \/ vacuum, \S+ to \S+, holds 1\)/,
    'and where it cannot tell'
  )
  t.match(text(html), 'freeze: rep-2: during window: 5 samples < 30: too short to trust', 'a warning per short window')

  const panel = text(/<section class="variant" id="variant-1">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '')
  t.match(panel, '95 % CI 0.60× – 0.62×', "the variant's own table: the interval")
  t.match(panel, 'noise (CV) 10.0 %', 'and the noise of the before windows')
  t.match(panel, '5.0 s during window: 5 samples < 30: too short to trust', 'each repetition flagged')
  t.match(text(html), /Confidence intervals \(CI\): 95 % percentile bootstrap/, 'the method in the lead')
  t.match(text(html), /worse or better than the first only when Welch's 95 % interval/, 'and the verdict')
})

t.test('fewer than 3 repetitions: no interval, no verdict, and the report says so', async t => {
  const two = path.join(work, 'two')
  const before = { throughputs: [1000, 1100], p99s: [2000, 2200] }
  await writeExperiment(two, {
    name: 'two-repetitions',
    description: 'a plan that asked for 2',
    workload: 'manta',
    variants: [
      vacuumVariant({ name: 'vacuum', ratios: [0.8, 0.82], p99Ratios: [1.5, 1.6], duringS: 30, ...before }),
      vacuumVariant({ name: 'freeze', ratios: [0.4, 0.42], p99Ratios: [3, 3.2], duringS: 30, ...before })
    ]
  })
  const { html, summary } = await buildReport(two)
  if (!summary) return t.fail('a summary')
  t.same(experimentSummaryProblems(summary), [], 'the summary follows docs/experiment-summary.schema.json')
  t.equal(summary.variants[1].statistics.degradation_ratio?.low, null, 'no interval')
  t.same(
    summary.comparisons.map(c => [c.verdict, c.effect]),
    [
      ['no interval', null],
      ['no interval', null]
    ],
    'no verdict, however far apart the means'
  )
  t.match(
    summary.comparisons[0].text,
    'cannot tell freeze from vacuum: vacuum has 2 repetitions with a ratio, freeze has 2 repetitions with a ratio, ' +
      'fewer than 3: no confidence interval'
  )
  const page = text(html)
  t.match(page, 'no CI: 2 rep. < 3', 'the table says there is no interval')
  t.match(
    page,
    'freeze: 2 repetitions: a confidence interval needs at least 3; the data cannot tell this variant from another',
    'a warning'
  )
  t.match(page, 'cannot tell: no CI', 'the verdict cell')
})
