// The known-answer part of the plans: the interval behind an experiment's
// answer (lib/results/t-interval.js) on generated repetitions whose
// effect is known, the reports' verdicts between variants on repetitions
// with no difference, and (the whole suite only) freeze-across-versions run
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
  const verdictCount = quick ? 500 : 4000
  const verdicts = verdictCases({ noise: 'normal', cv: 0.1, ratio: 1, n }, verdictCount, next)
  const pooled = falseAppeared.reduce((sum, share) => sum + share, 0) / falseAppeared.length
  const scenario = `${n} repetitions a side, normal and log-normal noise 2-30 %`
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
    {
      part: PART,
      scenario: `report verdicts (bootstrap intervals apart): ${n} repetitions a side, 10 % noise, no difference`,
      cases: verdicts.cases,
      result: `"worse" or "better" in ${pct(verdicts.told / verdicts.cases)}`,
      truth: 'no difference',
      error: `${pct(verdicts.told / verdicts.cases)} false verdicts`,
      target: '≤ 5 %',
      met: verdicts.told / verdicts.cases <= 0.05
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
