// The documentation as pages: the README stays short, every page the index
// promises is there, and every link between them (files and heading anchors)
// resolves. The link check is the one `npm run lint` runs (the lint:docs
// script, remark-validate-links), run here the same way; it is offline:
// external URLs are not fetched.
import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const remarkCli = path.join(root, 'node_modules', 'remark-cli', 'cli.js')
const README_MAX_LINES = 300

const PAGES = [
  // written by hand
  'README.md',
  'getting-started.md',
  'running.md',
  'workloads.md',
  'pgbench.md',
  'timeseries.md',
  'embedded-and-majors.md',
  'postgres-side.md',
  'experiments.md',
  'sidecar.md',
  'snapshots.md',
  'live-control.md',
  'deployment.md',
  'performance.md',
  'results.md',
  'development.md',
  'age-xids.md',
  'capacity.md',
  'change-points.md',
  'load-over-time.md',
  'thresholds.md',
  'timeouts-and-partitions.md',
  // the architecture and the references
  'architecture.md',
  'errors.md',
  'cli.md',
  'metrics.md',
  'summary.md',
  'summary.schema.json',
  'plans.md'
]

/**
 * Runs remark's command line with these arguments from the repository's root.
 * @param {string[]} args
 * @returns {Promise<{ code: number, stderr: string }>}
 */
function remark(args) {
  return new Promise(resolve => {
    execFile(
      process.execPath,
      [remarkCli, ...args],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' } },
      (err, _stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr })
    )
  })
}

/** The lint:docs script's arguments, so that the test checks what lint checks. */
function lintDocsArgs() {
  const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
  const [command, ...args] = String(scripts['lint:docs']).split(/\s+/)
  if (command !== 'remark') throw new Error(`lint:docs runs ${command}, not remark`)
  return args
}

t.test('the README is at most 300 lines', async t => {
  const lines = readFileSync(path.join(root, 'README.md'), 'utf8').split('\n')
  if (lines.at(-1) === '') lines.pop()
  t.ok(lines.length <= README_MAX_LINES, `README.md has ${lines.length} lines`)
})

t.test('every page of the index exists', async t => {
  for (const page of PAGES) t.ok(existsSync(path.join(root, 'docs', page)), `docs/${page}`)
})

t.test('every link of the README, docs/ and notes/ resolves', async t => {
  const args = lintDocsArgs()
  t.ok(args.includes('README.md') && args.includes('docs'), 'lint:docs covers the README and docs/')
  const { code, stderr } = await remark([...args, '--no-color'])
  t.equal(code, 0, 'remark exits 0')
  t.notMatch(stderr, /warning|error/i, 'and reports no broken link')
})

t.test('the check finds a missing file and a missing heading', async t => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgloadgen-docs-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const page = path.join(dir, 'page.md')
  writeFileSync(page, '# Page\n\n## Kept\n\n[here](#kept), [gone](#gone), [away](absent.md)\n')
  const { code, stderr } = await remark([
    '--quiet',
    '--frail',
    '--no-stdout',
    '--no-color',
    '--no-config',
    '--use',
    'remark-validate-links=repository:false',
    page
  ])
  t.not(code, 0, 'remark fails')
  t.match(stderr, /Cannot find heading for `#gone`/, 'names the missing heading')
  t.match(stderr, /Cannot find file `absent\.md`/, 'names the missing file')
  t.notMatch(stderr, /#kept/, 'and not the heading that is there')
})
