import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { climbingTypes, layerViolations } from '../helpers/layers.js'

// The layer order of lib/ (.dependency-cruiser.mjs, docs/architecture.md):
// the rules catch a climbing import, a cycle between folders and prom-client
// on the generator's hot path in a tree built to break them, and lib/ keeps
// to them.

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const fixture = path.join(repo, 'test/fixtures/layers')

t.test('a tree that breaks the order fails, naming each rule', async t => {
  const violations = await layerViolations(fixture)
  const of = (/** @type {string} */ rule) => violations.filter(v => v.rule === rule)
  t.match(
    of('layer-climb'),
    [{ from: 'lib/config/settings.js', to: 'lib/report/page.js' }],
    'config importing report climbs'
  )
  t.equal(of('layer-climb').length, 1, 'and nothing else climbs')
  t.ok(
    of('folder-cycle').some(v => /lib\/(lab|sidecar)/.test(v.from) && /lib\/(lab|sidecar)/.test(v.to)),
    'lab and sidecar importing each other is a cycle between folders'
  )
  t.match(
    of('hot-path-prom-client'),
    [{ from: 'lib/generator/worker.js', to: /node_modules\/prom-client\// }],
    'the worker reaching prom-client through metrics/ is refused'
  )
  t.same(
    climbingTypes(fixture),
    [{ from: 'lib/metrics/figures.js', to: 'lib/report/page.js' }],
    'a typedef property whose type climbs is found too'
  )
})

t.test('lib/ and bin/ keep the order', async t => {
  t.same(await layerViolations(repo), [], 'dependency-cruiser finds no violation')
  t.same(climbingTypes(repo), [], 'no JSDoc type climbs')
})
