// The recording rules of deploy/prometheus/pgloadgen-rules.yml, with
// Debian's promtool: `promtool check rules` accepts them, and `promtool test
// rules` (test/promtool-rules/pgloadgen-rules.test.yml: three instances of
// different latencies) gets the rates summed over instances and the
// quantiles of the summed buckets. The same unit tests fail against rules
// that take each instance's quantile first, so that they are known to tell
// the two apart.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO } from '../helpers/cli.js'
import { PROMTOOL_BIN, missingBinary } from '../helpers/prometheus.js'

const RULES = join(REPO, 'deploy', 'prometheus', 'pgloadgen-rules.yml')
const UNIT_TESTS = join(REPO, 'test', 'promtool-rules', 'pgloadgen-rules.test.yml')

/** @param {string[]} args */
const promtool = args => spawnSync(PROMTOOL_BIN, args, { encoding: 'utf8', timeout: 60000 })

const missing = missingBinary(PROMTOOL_BIN)
if (missing) {
  t.fail(missing)
} else {
  t.test('promtool check rules accepts the rules file', async t => {
    const result = promtool(['check', 'rules', RULES])
    t.equal(result.status, 0, `exit 0\n${result.stdout}${result.stderr}`)
  })

  t.test('promtool test rules: sums over instances, quantiles of the summed buckets', async t => {
    const result = promtool(['test', 'rules', UNIT_TESTS])
    t.equal(result.status, 0, `exit 0\n${result.stdout}${result.stderr}`)
  })

  t.test('the same unit tests fail against a quantile of quantiles', async t => {
    const dir = mkdtempSync(join(tmpdir(), 'pgloadgen-rules-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const rules = readFileSync(RULES, 'utf8')
    // Each instance's p99, then the highest: what the rules must not do.
    const wrong = rules.replace(
      'expr: histogram_quantile(0.99, sum by (le, type) (rate(pgloadgen_query_latency_us_bucket[1m])))',
      'expr: max by (type) (histogram_quantile(0.99, sum by (le, type, instance) ' +
        '(rate(pgloadgen_query_latency_us_bucket[1m]))))'
    )
    t.not(wrong, rules, 'the per-type p99 rule was found and replaced')
    writeFileSync(join(dir, 'rules.yml'), wrong)
    const tests = readFileSync(UNIT_TESTS, 'utf8').replace('../../deploy/prometheus/pgloadgen-rules.yml', 'rules.yml')
    writeFileSync(join(dir, 'tests.yml'), tests)
    t.equal(promtool(['check', 'rules', join(dir, 'rules.yml')]).status, 0, 'the wrong rules are valid rules')
    const result = promtool(['test', 'rules', join(dir, 'tests.yml')])
    t.not(result.status, 0, 'promtool test rules fails')
    t.match(`${result.stdout}${result.stderr}`, /p99_rate1m/, 'on the p99 rule')
  })
}
