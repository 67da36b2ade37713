// pgbench scripts through the CLI as a user runs them: pgloadgen init makes
// pgbench's tables, the built-in scripts keep the TPC-B books balanced,
// users' scripts (\gset, \aset, \if, random_zipfian, permute, hash, CASE,
// \sleep, pipelines) run with no unexpected failure, each script is a
// request type with its own latency histogram on /metrics, and a script's
// runtime error fails its request with FILE:LINE and the client goes on.
// On PostgreSQL 15 and the embedded PostgreSQL 18.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { CliRun, runCli } from '../helpers/cli.js'
import { createTestDatabase, query } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { scrape, sampleValue } from '../helpers/prom.js'

const FIXTURES = 'test/fixtures/pgbench'
const USER_SCRIPTS = ['gset-aset', 'conditionals', 'functions', 'pipeline', 'sleep']
// a count of transactions, not a time: a busy machine does a tenth of a
// quiet one's in 2 s, and the shares and counts below need enough of them
const PER_CLIENT = 60
const RUN = ['-c', '4', '-t', String(PER_CLIENT), '--json', '-p', '0', '--no-pg-stats', '--log-level', 'warn']

/**
 * The TPC-B books: the accounts' sum is the history's; tellers' and
 * branches' sums are equal (tpcb-like changes a teller and its branch
 * alike), and equal to the accounts' when only tpcb-like ran.
 * @param {string} url
 */
async function books(url) {
  const row = (
    await query(
      url,
      `SELECT
    (SELECT sum(abalance) FROM pgbench_accounts)::bigint AS accounts,
    (SELECT sum(bbalance) FROM pgbench_branches)::bigint AS branches,
    (SELECT sum(tbalance) FROM pgbench_tellers)::bigint AS tellers,
    (SELECT coalesce(sum(delta), 0) FROM pgbench_history)::bigint AS history`
    )
  ).rows[0]
  return {
    accounts: Number(row.accounts),
    branches: Number(row.branches),
    tellers: Number(row.tellers),
    history: Number(row.history)
  }
}

for (const server of ['PostgreSQL 15', 'PostgreSQL 18']) {
  t.test(server, async t => {
    const url =
      server === 'PostgreSQL 15' ? (await createTestDatabase(t, 'pgbench_cli')).url : (await startEmbedded(t)).url

    const init = await runCli(['init', url, '-s', '2', '--json', '--log-level', 'warn'], { t })
    t.equal(init.code, 0, `init exits 0; stderr: ${init.stderr}`)
    const made = JSON.parse(init.stdout)
    t.same(made.rows, { branches: 2, tellers: 20, accounts: 200000, history: 0 }, "pgbench's rows at scale 2")

    const again = await runCli(['init', url, '-s', '1'], { t })
    t.equal(again.code, 2, 'init refuses to drop tables with rows without --yes')
    t.match(again.stderr, /already has pgbench tables with rows .*give --yes/)
    t.equal(
      Number((await query(url, 'SELECT count(*) AS n FROM pgbench_accounts')).rows[0].n),
      200000,
      'nothing was dropped'
    )

    t.test('tpcb-like: the books balance, in each protocol', async t => {
      for (const protocol of ['prepared', 'extended', 'simple']) {
        const result = await runCli(['run', url, '-b', 'tpcb-like', '-M', protocol, ...RUN], { t })
        t.equal(result.code, 0, `${protocol}: exit 0; stderr: ${result.stderr}`)
        const summary = result.summary
        t.same(Object.keys(summary.requests), ['tpcb-like'], `${protocol}: the request type is the script`)
        t.equal(summary.requests['tpcb-like'].done, 4 * PER_CLIENT, `${protocol}: every transaction ran`)
        t.equal(summary.unexpected_failures, 0, `${protocol}: no failure: ${JSON.stringify(summary.errors)}`)
        const sums = await books(url)
        t.ok(
          sums.accounts === sums.branches && sums.branches === sums.tellers && sums.tellers === sums.history,
          `${protocol}: sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta): ${JSON.stringify(sums)}`
        )
      }
    })

    t.test('simple-update and select-only (-N, -S) with weights; the books still balance', async t => {
      const before = await books(url)
      const result = await runCli(['run', url, '-N', '-b', 'select-only@3', ...RUN], { t })
      t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
      const summary = result.summary
      t.same(Object.keys(summary.requests), ['simple-update', 'select-only'])
      t.equal(summary.mix, 'simple-update=1,select-only=3', 'the weights of -b NAME@WEIGHT')
      const share =
        summary.requests['select-only'].done /
        (summary.requests['select-only'].done + summary.requests['simple-update'].done)
      t.ok(share > 0.65 && share < 0.85, `select-only has about 3/4 of the requests (${share.toFixed(3)})`)
      t.equal(summary.unexpected_failures, 0, `no failure: ${JSON.stringify(summary.errors)}`)
      const after = await books(url)
      t.equal(after.accounts, after.history, 'sum(abalance) = sum(delta)')
      t.ok(
        after.tellers === before.tellers && after.branches === before.branches,
        'simple-update leaves tellers and branches alone'
      )
    })

    t.test("users' scripts run unchanged, each a request type with its latency histogram", async t => {
      const files = USER_SCRIPTS.map(name => `${FIXTURES}/${name}.sql`)
      const run = new CliRun(
        [
          'run',
          url,
          ...files.flatMap(file => ['-f', file]),
          '-c',
          '4',
          '-d',
          '4',
          '--json',
          '-p',
          '0',
          '--no-pg-stats'
        ],
        { t }
      )
      const metricsUrl = await run.metricsUrl()
      await run.waitForStderr(/running pgbench/)
      await new Promise(resolve => setTimeout(resolve, 2000))
      const page = await scrape(metricsUrl)
      for (const name of USER_SCRIPTS) {
        t.ok(
          (sampleValue(page.families, 'pgloadgen_query_latency_us_count', { type: name, result: 'ok' }) ?? 0) > 0,
          `/metrics: a latency histogram for ${name}`
        )
      }
      const result = await run.exited
      t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
      const summary = result.summary
      t.same(Object.keys(summary.requests), USER_SCRIPTS, 'one request type per script, named after its file')
      for (const name of USER_SCRIPTS)
        t.ok(summary.requests[name].done > 0, `${name} ran (${summary.requests[name].done})`)
      t.equal(summary.unexpected_failures, 0, `no failure: ${JSON.stringify(summary.errors)}`)
      t.ok(
        summary.requests.sleep.latency_us.p50 >= 35000,
        `\\sleep counts in the script's latency (p50 ${summary.requests.sleep.latency_us.p50} µs)`
      )
      const sums = await books(url)
      t.equal(sums.accounts, sums.history, 'the pipelined TPC-B script keeps the books')
    })

    t.test('a runtime error fails its request with FILE:LINE, and the client goes on', async t => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-scripts-'))
      t.teardown(() => rm(dir, { recursive: true, force: true }))
      const failing = path.join(dir, 'sometimes.sql')
      await writeFile(
        failing,
        [
          '\\set n random(0, 3)',
          'BEGIN;',
          'UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = 1;',
          '\\set q 10 / :n',
          'SELECT :q AS q;',
          'END;',
          ''
        ].join('\n')
      )
      const result = await runCli(['run', url, '-f', failing, ...RUN], { t })
      t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
      const summary = result.summary
      const done = summary.requests.sometimes.done
      const failed = summary.requests.sometimes.failed
      t.ok(failed > 0 && failed < done, `about a quarter of the runs divide by zero (${failed} of ${done})`)
      t.same(
        Object.keys(summary.errors),
        [`${failing}:4: division by zero`],
        "counted under the script's file and line, and pgbench's message"
      )
      t.equal(summary.errors[`${failing}:4: division by zero`], failed)
      t.equal(summary.unexpected_failures, failed, 'a script error is an unexpected failure')
      t.equal(summary.reconnects, 0, 'the transaction was rolled back and the connection kept')
    })
  })
}
