// The wraparound-cycles plan, shortened: the same steps with
// autovacuum_freeze_max_age at 200 000 (the shipped plan's 10 million take
// about ten minutes). Three natural anti-wraparound autovacuums of the
// table and one failsafe, recorded in the run's summary.json and shown in
// the report.
import t from 'tap'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from '../helpers/cli.js'
import { loadPlan } from '../../lib/experiment/plan.js'
import { readExperimentSummary, readRunSummary } from '../helpers/summary-schema.js'

const SHIPPED = fileURLToPath(new URL('../../notes/experiments/wraparound-cycles.yaml', import.meta.url))

/**
 * The shipped plan with its ages scaled down 50 times (10 million to
 * 200 000), but for the failsafe's: scaled too, it would sit 14 000 xids
 * above where the natural bursts stop, which the load itself spends in a
 * few seconds while a busy machine's autovacuum is slow to start, so that a
 * natural cycle could trip it too (it did once, two failsafes). At 300 000,
 * with the emergency burst at 320 000, the natural cycles keep the shipped
 * plan's margin in seconds of load.
 * @param {string} text
 */
function shortened(text) {
  return text
    .replace(/\b(\d{7,8})\b/g, (_, n) => String(Number(n) / 50))
    .replace('vacuum_failsafe_age: 220000', 'vacuum_failsafe_age: 300000')
    .replace('to_age: 232000', 'to_age: 320000')
    .replace('rows: 100000', 'rows: 20000')
    .replace(/load: (10|20)s/g, 'load: 3s')
}

t.test('the shipped plan is valid and asks what the lab promises', async t => {
  const plan = await loadPlan(SHIPPED)
  t.equal(plan.name, 'wraparound-cycles')
  const text = await readFile(SHIPPED, 'utf8')
  t.ok(
    Number(/autovacuum_freeze_max_age: (\d+)/.exec(text)?.[1]) >= 10000000,
    'autovacuum_freeze_max_age of at least 10 million'
  )
})

t.test('a shortened run: three anti-wraparound autovacuums and one failsafe, recorded and shown', async t => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-wrap-'))
  // the embedded server runs as postgres when we are root, and must get in
  await chmod(dir, 0o755)
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const plan = path.join(dir, 'plan.yaml')
  await writeFile(plan, shortened(await readFile(SHIPPED, 'utf8')))
  const out = path.join(dir, 'out')
  const result = await runCli(['experiment', plan, '--out', out, '-P', '0'], { t })
  t.equal(result.code, 0, `exit 0; stderr tail: ${result.stderr.slice(-800)}`)
  const run = await readRunSummary(path.join(out, 'variants', 'cycles', 'rep-1', 'summary.json'))
  const wraparound = run.vacuums.filter(
    (/** @type {any} */ v) => v.action === 'autovacuum_wraparound' && v.table === 'public.test_table'
  )
  t.ok(wraparound.length >= 4, `anti-wraparound autovacuums of the table: ${wraparound.length}`)
  t.ok(
    run.wraparound.vacuums.length >= 4 &&
      run.wraparound.vacuums.every((/** @type {any} */ v) => v.vacuum_mode === 'wraparound'),
    'each with vacuum_mode wraparound'
  )
  t.equal(run.wraparound.failsafes.length, 1, 'the failsafe tripped once for the table')
  t.equal(
    run.wraparound.vacuums.filter((/** @type {any} */ v) => v.failsafe).length,
    1,
    'and it is the one vacuum marked'
  )
  // the one held back by the lock; another natural one may follow it when the failsafe's pass left the table old
  const failsafeAt = run.wraparound.vacuums.findIndex((/** @type {any} */ v) => v.failsafe)
  t.ok(failsafeAt >= 3, `the failsafe vacuum comes after the three natural ones (it is number ${failsafeAt + 1})`)
  t.ok(
    run.wraparound.vacuums.slice(0, 3).every((/** @type {any} */ v) => !v.failsafe),
    'the three natural ones did not trip it'
  )
  for (const v of run.wraparound.vacuums) t.ok(v.during.samples >= 1 && v.during.p99_us > 0, 'a latency during each')
  t.ok(run.wraparound.outside.samples > 5 && run.wraparound.outside.p99_us > 0, 'and outside them')
  const summary = await readExperimentSummary(path.join(out, 'summary.json'))
  t.equal(summary.variants[0].wraparound[0].failsafes.length, 1, 'the experiment summary carries it')
  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  t.match(html, /Anti-wraparound vacuums and the failsafe/, 'the report shows it')
  t.match(html, /tripped/, 'with the failsafe')
})
