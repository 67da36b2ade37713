import { cliPage } from './cli-page.js'
import { errorsPage } from './errors-page.js'
import { metricsPage } from './metrics-page.js'
import { plansPage } from './plans-page.js'
import { experimentSummaryPage, summaryPage } from './schema-page.js'

// The pages generated from the code, each with what renders it: what
// npm run docs:generate writes and test/unit/generated-docs.test.js checks.

/** @type {ReadonlyArray<{ file: string, render: () => Promise<string> | string }>} */
export const GENERATED_PAGES = [
  { file: 'docs/cli.md', render: cliPage },
  { file: 'docs/errors.md', render: errorsPage },
  { file: 'docs/metrics.md', render: metricsPage },
  { file: 'docs/plans.md', render: plansPage },
  { file: 'docs/summary.md', render: summaryPage },
  { file: 'docs/experiment-summary.md', render: experimentSummaryPage }
]
