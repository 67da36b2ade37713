// The reference pages generated from the code (docs/cli.md, errors.md,
// metrics.md, plans.md, summary.md, experiment-summary.md) are rendered again here, in memory, and must equal
// what is committed: a flag, a metric or a plan field changed without its
// page fails this test until the page is regenerated.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { GENERATED_PAGES } from '../../scripts/docs/pages.js'

const ROOT = new URL('../../', import.meta.url)

for (const page of GENERATED_PAGES) {
  t.test(page.file, async t => {
    const rendered = await page.render()
    const committed = await readFile(new URL(page.file, ROOT), 'utf8').catch(() => null)
    t.ok(committed !== null, `${page.file} is committed (run npm run docs:generate)`)
    if (committed === null) return
    const line = firstDifference(committed, rendered)
    t.ok(
      line === null,
      line === null
        ? `${page.file} is as the code generates it`
        : `${page.file} differs from what the code generates at line ${line}: run npm run docs:generate`
    )
  })
}

t.test('the pages name every plan field, metric and command they are made from', async t => {
  const { PLAN_SECTIONS } = await import('../../lib/experiment/plan-table.js')
  const plans = await readFile(new URL('docs/plans.md', ROOT), 'utf8')
  for (const section of PLAN_SECTIONS) {
    for (const name of Object.keys(section.fields)) t.match(plans, `\`${name}\``, `plans.md: ${section.path}.${name}`)
  }
  const cli = await readFile(new URL('docs/cli.md', ROOT), 'utf8')
  for (const command of ['run', 'capacity', 'experiment', 'merge', 'snapshot create', 'k8s render', 'server install']) {
    t.match(cli, `pgloadgen ${command}`, `cli.md: ${command}`)
  }
  t.match(cli, '`--concurrency`, `-c`', 'cli.md: a run setting with its letter')
  for (const [page, schemaFile] of [
    ['summary.md', 'summary.schema.json'],
    ['experiment-summary.md', 'experiment-summary.schema.json']
  ]) {
    const text = await readFile(new URL(`docs/${page}`, ROOT), 'utf8')
    const schema = JSON.parse(await readFile(new URL(`docs/${schemaFile}`, ROOT), 'utf8'))
    for (const object of [schema, ...Object.values(schema.$defs)]) {
      for (const name of Object.keys(object.properties ?? {})) t.match(text, `\`${name}\``, `${page}: ${name}`)
    }
    for (const name of Object.keys(schema.$defs)) t.match(text, `## ${name}\n`, `${page}: the definition ${name}`)
  }
  const metrics = await readFile(new URL('docs/metrics.md', ROOT), 'utf8')
  for (const metric of ['pgloadgen_nqueries_done', 'pgloadgen_query_latency_us', 'pg_stat_user_tables_n_dead_tup']) {
    t.match(metrics, `\`${metric}\``, `metrics.md: ${metric}`)
  }
})

/**
 * The number of the first line where two texts differ, or null.
 * @param {string} a
 * @param {string} b
 */
function firstDifference(a, b) {
  if (a === b) return null
  const left = a.split('\n')
  const right = b.split('\n')
  for (let i = 0; i < Math.max(left.length, right.length); i++) if (left[i] !== right[i]) return i + 1
  return null
}
