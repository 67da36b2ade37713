// The known-answer part of the plans: the interval behind an experiment's
// answer (lib/results/t-interval.js) on generated repetitions whose
// effect is known, the reports' verdicts between variants on repetitions
// with no difference and with a 20 % one, and (the whole suite only)
// freeze-across-versions run
// for real, where PostgreSQL 18's eager freezing is there by construction.
import { spawn } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { MEASURED } from '../../lib/report/answer-method.js'
import { experimentAnswer } from '../../lib/report/answer-lead.js'
import { answerCases, verdictCases } from './plans-intervals.js'

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const PART = 'plans'
const NOISES = /** @type {const} */ (['normal', 'lognormal'])
const SPREADS = [0.02, 0.1, 0.3]
// the reports' verdicts: repetitions a side, at 10 % noise
const VERDICT_REPETITIONS = [3, 5, 10]
const VERDICT_SPREAD = 0.1

/** @param {number} share */
const pct = share => `${(share * 100).toFixed(1)} %`

/**
 * @param {import('./contract.js').KnownAnswerContext} context
 * @returns {Promise<import('./contract.js').KnownAnswerRow[]>}
 */
export async function run(context) {
  const rows = intervalRows(context)
  if (!context.quick) rows.push(...(await freezeRows(context)))
  return rows
}

/**
 * @param {import('./contract.js').KnownAnswerContext} context
 * @returns {import('./contract.js').KnownAnswerRow[]}
 */
export function intervalRows({ seed, quick, say }) {
  const cases = quick ? 500 : MEASURED.casesPerSetting
  const n = MEASURED.repetitions
  let next = seed * 1000
  const coverage = []
  /** @type {number[]} */
  const falseAppeared = []
  const found = []
  for (const noise of NOISES) {
    for (const cv of SPREADS) {
      for (const ratio of [1, 0.8]) {
        const outcome = answerCases({ noise, cv, ratio, n }, cases, next++)
        coverage.push(outcome.covered / cases)
        if (ratio === 1) falseAppeared.push(outcome.appeared / cases)
        else if (cv === 0.02) found.push(outcome.appeared / cases)
      }
    }
  }
  say(`plans: the answer's interval over ${coverage.length} settings of ${cases} cases`)
  const low = Math.min(...coverage)
  const high = Math.max(...coverage)
  // the coverage the answer states must still hold (within the spread of a fresh measurement)
  const slack = quick ? 0.03 : 0.015
  const stated = low >= MEASURED.coverageLow - slack && high <= MEASURED.coverageHigh + slack
  const pooled = falseAppeared.reduce((sum, share) => sum + share, 0) / falseAppeared.length
  const scenario = `${n} repetitions a side, normal and log-normal noise 2-30 %`
  const verdicts = verdictRows(quick ? 500 : 4000, next)
  return [
    {
      part: PART,
      scenario: `answer interval: ${scenario}, true ratio 1 or 0.8`,
      cases: cases * coverage.length,
      result: `held the true ratio in ${pct(low)}-${pct(high)} of cases`,
      truth: 'the seeded ratio',
      error: `${pct(Math.max(0, 0.95 - low))} below 95 % at worst; stated ${pct(MEASURED.coverageLow)}-${pct(
        MEASURED.coverageHigh
      )}`,
      target: '≥ 93 % in every setting, as the answer states it',
      met: low >= 0.93 && stated
    },
    {
      part: PART,
      scenario: `answer with no effect: ${scenario}`,
      cases: cases * falseAppeared.length,
      result: `"appeared" said in ${pct(pooled)} (${pct(Math.max(...falseAppeared))} at most in a setting)`,
      truth: 'no effect',
      error: `${pct(pooled)} false "appeared"`,
      target: `≤ 2.5 % over all settings (one-sided 95 %)`,
      met: pooled <= 0.025
    },
    {
      part: PART,
      scenario: `answer, a 20 % lower figure: ${n} repetitions a side, 2 % noise`,
      cases: cases * found.length,
      result: `appeared in ${pct(Math.min(...found))}`,
      truth: 'ratio 0.8',
      error: `${pct(1 - Math.min(...found))} missed`,
      target: '≥ 95 % found',
      met: Math.min(...found) >= 0.95
    },
    ...verdicts
  ]
}

/**
 * The reports' verdict between variants (lib/results/statistics.js
 * compareVariants): how often it says "worse" or "better" of no difference,
 * and how often it finds a throughput ratio 20 % lower.
 * @param {number} cases   per setting
 * @param {number} seed    of the first setting, the next ones after it
 * @returns {import('./contract.js').KnownAnswerRow[]}
 */
function verdictRows(cases, seed) {
  let next = seed
  /** @type {number[]} */
  const told = []
  /** @type {number[]} */
  const found = []
  for (const n of VERDICT_REPETITIONS) {
    for (const noise of NOISES) {
      const none = verdictCases({ noise, cv: VERDICT_SPREAD, ratio: 1, n }, cases, next++)
      told.push((none.worse + none.better) / cases)
      found.push(verdictCases({ noise, cv: VERDICT_SPREAD, ratio: 0.8, n }, cases, next++).worse / cases)
    }
  }
  const pooled = told.reduce((sum, share) => sum + share, 0) / told.length
  // a setting's share may lie above 5 % by the spread of a measurement of this many cases
  const allowed = 0.05 + 2 * Math.sqrt((0.05 * 0.95) / cases)
  const reps = VERDICT_REPETITIONS.join(', ')
  const scenario = `${reps} repetitions a side, normal and log-normal noise ${VERDICT_SPREAD * 100} %`
  /** @param {number[]} shares  per setting, by repetitions then noise */
  const byReps = shares =>
    VERDICT_REPETITIONS.map(
      (n, i) =>
        `${shares
          .slice(i * NOISES.length, (i + 1) * NOISES.length)
          .map(pct)
          .join(' / ')} at ${n}`
    ).join(', ')
  const tenFound = Math.min(...found.slice(-NOISES.length))
  return [
    {
      part: PART,
      scenario: `report verdicts (Welch's interval of the ratio): ${scenario}, no difference`,
      cases: cases * told.length,
      result: `"worse" or "better" in ${pct(pooled)} (${pct(Math.max(...told))} at most in a setting)`,
      truth: 'no difference',
      error: `${pct(pooled)} false verdicts`,
      target: `≤ 5 % over all settings; each within ${pct(allowed)} (5 % and the spread of ${cases} cases)`,
      met: pooled <= 0.05 && Math.max(...told) <= allowed
    },
    {
      part: PART,
      scenario: `report verdicts, a 20 % lower throughput ratio: ${scenario}`,
      cases: cases * found.length,
      result: `"worse" in ${byReps(found)} repetitions (normal / log-normal noise)`,
      truth: 'ratio 0.8',
      error: `${pct(1 - tenFound)} missed at ${VERDICT_REPETITIONS[VERDICT_REPETITIONS.length - 1]} repetitions`,
      target: `≥ 95 % found at ${VERDICT_REPETITIONS[VERDICT_REPETITIONS.length - 1]} repetitions`,
      met: tenFound >= 0.95
    }
  ]
}

/**
 * freeze-across-versions run for real: its answer, effect by effect.
 * @param {import('./contract.js').KnownAnswerContext} context
 * @returns {Promise<import('./contract.js').KnownAnswerRow[]>}
 */
async function freezeRows({ say }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-answers-plans-'))
  // the embedded servers run as postgres when we are root, and must get in
  await chmod(dir, 0o755)
  const out = path.join(dir, 'out')
  try {
    say('plans: freeze-across-versions on PostgreSQL 16, 17 and 18 (an hour or more on a busy 2-core machine)')
    const plan = path.join(REPO, 'notes', 'experiments', 'freeze-across-versions.yaml')
    const code = await runNode(['bin/pgloadgen.js', 'experiment', plan, '--out', out, '-P', '0'])
    const summary = JSON.parse(await readFile(path.join(out, 'summary.json'), 'utf8'))
    const info = JSON.parse(await readFile(path.join(out, 'experiment.json'), 'utf8'))
    const answer = experimentAnswer(info.plan, summary)
    if (code !== 0 || !answer) throw new Error(`the experiment exited ${code}`)
    return answer.items.map(item => ({
      part: PART,
      scenario: `freeze-across-versions: ${item.expected.replace(/^Expected: /, '').replace(/\.$/, '')}`,
      cases: summary.variants.reduce(
        (/** @type {number} */ sum, /** @type {any} */ v) => sum + v.repetitions.length,
        0
      ),
      result: item.measured.replace(/^Measured: /, ''),
      truth: "18's eager freezing, by construction",
      error: item.verdict === 'appeared' ? 'none' : item.verdict,
      target: 'appeared against 16 and 17',
      met: item.verdict === 'appeared'
    }))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * @param {string[]} args
 * @returns {Promise<number>}
 */
function runNode(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO, stdio: 'ignore' })
    child.on('error', reject)
    child.on('exit', code => resolve(code ?? 1))
  })
}
