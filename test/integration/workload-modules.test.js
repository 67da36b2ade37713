// A workload module of the user's own (test/fixtures/workloads/ledger.js)
// runs as the built-ins do: its request types name every metric, the
// summary and the recorded samples; its statements go through each protocol
// (-M prepared, extended, simple) with pipelined and dependent transactions,
// rows read back and COPY FROM STDIN; its data stays consistent. On
// PostgreSQL 15 and on the embedded PostgreSQL 18.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { CliRun, runCli, lines } from '../helpers/cli.js'
import { createTestDatabase, query } from '../helpers/pg.js'
import { startEmbedded, tempDataDir } from '../helpers/embedded.js'
import { scrape, sampleValue } from '../helpers/prom.js'

const LEDGER = 'test/fixtures/workloads/ledger.js'
const TYPES = ['deposit', 'transfer', 'audit', 'bulk', 'overdraw']
const BULK_ROWS = 30

/**
 * What must hold of the ledger's data after runs: balances are the ledger's
 * sums, and bulk holds whole batches only.
 * @param {import('tap').Test} t
 * @param {string} url
 * @param {any} summary   of the last run
 * @param {number} bulkRowsBefore
 */
async function checkLedger(t, url, summary, bulkRowsBefore) {
  const sums = (
    await query(
      url,
      `SELECT
      (SELECT coalesce(sum(balance), 0)::bigint FROM accounts) AS balances,
      (SELECT coalesce(sum(amount), 0)::bigint FROM ledger) AS ledger,
      (SELECT count(*)::bigint FROM accounts
        WHERE balance <> (SELECT coalesce(sum(amount), 0) FROM ledger l WHERE l.account = accounts.id)) AS wrong,
      (SELECT count(*)::bigint FROM bulk) AS bulk,
      (SELECT count(*)::bigint FROM bulk WHERE note IS NULL) AS nulls,
      (SELECT count(*)::bigint FROM bulk WHERE note = E'tab\\there, newline\\nthere') AS escaped`
    )
  ).rows[0]
  t.equal(sums.balances, sums.ledger, `the balances add up to the ledger (${sums.balances})`)
  t.equal(Number(sums.wrong), 0, "each account's balance is the sum of its ledger entries")
  const bulkDone = summary.requests.bulk.done - summary.requests.bulk.failed
  t.equal(
    Number(sums.bulk) - bulkRowsBefore,
    bulkDone * BULK_ROWS,
    `COPY stored exactly the rows of the ${bulkDone} bulk requests`
  )
  t.equal(
    Number(sums.nulls) + Number(sums.escaped),
    Number(sums.bulk),
    'NULLs and values with tabs and newlines went through COPY intact'
  )
}

/**
 * @param {import('tap').Test} t
 * @param {any} summary
 */
function checkSummary(t, summary) {
  t.equal(summary.workload, 'ledger')
  t.same(Object.keys(summary.requests), TYPES, "the summary's requests are the module's types, in its order")
  t.equal(summary.mix, 'deposit=40,transfer=30,audit=10,bulk=5,overdraw=5', "the module's default mix")
  for (const type of TYPES.filter(type => type !== 'overdraw')) {
    t.ok(summary.requests[type].done > 0, `${type} ran (${summary.requests[type].done})`)
    t.equal(summary.requests[type].failed, 0, `no ${type} failed`)
  }
  t.equal(
    summary.requests.overdraw.failed,
    summary.requests.overdraw.done,
    'every overdraw is refused by the CHECK constraint'
  )
  t.equal(
    summary.unexpected_failures,
    0,
    `the refusals are expected (expectedError 23514), nothing else failed: ${JSON.stringify(summary.errors)}`
  )
  t.equal(summary.acknowledged_missing, null, 'no dense-id table, so no insert audit')
}

t.test('PostgreSQL 15: each protocol', async t => {
  const db = await createTestDatabase(t, 'modules')
  let bulkBefore = 0
  for (const protocol of ['prepared', 'extended', 'simple']) {
    t.test(`-M ${protocol}`, async t => {
      const result = await runCli(
        [
          'run',
          db.url,
          '--workload',
          LEDGER,
          '-M',
          protocol,
          '-D',
          `bulk_rows=${BULK_ROWS}`,
          '-c',
          '4',
          '-d',
          '3',
          '--json',
          '-p',
          '0',
          '--no-pg-stats',
          '--log-level',
          'warn'
        ],
        { t }
      )
      t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
      t.equal(result.summary.protocol, protocol)
      checkSummary(t, result.summary)
      await checkLedger(t, db.url, result.summary, bulkBefore)
      bulkBefore = Number((await query(db.url, 'SELECT count(*)::bigint AS n FROM bulk')).rows[0].n)
    })
  }
})

t.test("embedded PostgreSQL 18: metrics and recorded samples follow the module's types", async t => {
  const server = await startEmbedded(t)
  const recordDir = path.join(await tempDataDir(t), 'run')
  const run = new CliRun(
    [
      'run',
      server.url,
      '--workload',
      LEDGER,
      '-D',
      `bulk_rows=${BULK_ROWS}`,
      '-c',
      '4',
      '-d',
      '4',
      '--json',
      '-p',
      '0',
      '--record',
      recordDir,
      '--stats-interval',
      '1'
    ],
    { t }
  )
  const metricsUrl = await run.metricsUrl()
  await run.waitForStderr(/running ledger/)
  await new Promise(resolve => setTimeout(resolve, 2000))
  const page = await scrape(metricsUrl)
  for (const name of [
    'pgloadgen_nqueries_started',
    'pgloadgen_nqueries_done',
    'pgloadgen_nqueries_failed',
    'pgloadgen_query_latency_max_us'
  ]) {
    t.same(
      page.families
        .get(name)
        ?.samples.map(s => s.labels.type)
        .sort(),
      [...TYPES].sort(),
      `${name}: one series per type of the module`
    )
  }
  t.ok(
    (sampleValue(page.families, 'pgloadgen_query_latency_us_count', { type: 'bulk', result: 'ok' }) ?? 0) > 0,
    'a latency histogram for bulk'
  )
  const result = await run.exited
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  t.match(result.summary.server_version, /^18\./)
  checkSummary(t, result.summary)
  await checkLedger(t, server.url, result.summary, 0)
  const runInfo = JSON.parse(await readFile(path.join(recordDir, 'run.json'), 'utf8'))
  t.same(runInfo.types, TYPES, "run.json names the types in the module's order")
  t.equal(runInfo.workload_source, LEDGER)
  const samples = lines(await readFile(path.join(recordDir, 'samples.ndjson'), 'utf8')).map(line => JSON.parse(line))
  t.ok(samples.length >= 2, `samples were recorded (${samples.length})`)
  t.same(Object.keys(samples[samples.length - 1].requests), TYPES, "each sample has the module's types")
  t.equal(samples.at(-1).pg?.table, 'ledger', "the samples follow the module's table")
})
