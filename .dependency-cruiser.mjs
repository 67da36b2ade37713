// The layer order of lib/, bottom to top, checked by `npm run lint`
// (docs/architecture.md). A folder may import its own layer and the ones
// below it, never one above; folders of one layer may import each other
// as long as no cycle between folders forms.
export const LAYERS = [
  ['errors.js', 'error-codes.js', 'log.js', 'helpers'],
  ['wire', 'config', 'pg'],
  ['metrics', 'pgstats'],
  ['pgbench', 'workloads', 'scale', 'generator', 'summary'],
  ['recorder', 'analysis', 'lab', 'sidecar', 'snapshot', 'embedded', 'http'],
  ['results', 'compare'],
  ['report', 'merge', 'terminal', 'capacity', 'k8s', 'experiment'],
  ['cli']
]

/** @param {string[]} folders  a regular expression for the modules of these folders of lib/ */
const inFolders = folders => `^lib/(${folders.map(f => f.replace('.', '\\.')).join('|')})($|/)`

const climbs = LAYERS.slice(0, -1).map((folders, i) => ({
  name: 'layer-climb',
  comment: `${folders.join(', ')} (layer ${i}) may not import a higher layer (docs/architecture.md)`,
  severity: 'error',
  from: { path: inFolders(folders) },
  to: { path: [inFolders(LAYERS.slice(i + 1).flat()), '^bin/'] }
}))

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...climbs,
    {
      name: 'layer-climb',
      comment: 'lib/ never imports bin/',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^bin/' }
    },
    {
      name: 'layer-unknown',
      comment: 'every folder of lib/ has a layer: add a new one to LAYERS in .dependency-cruiser.mjs',
      severity: 'error',
      from: { path: '^lib/', pathNot: inFolders(LAYERS.flat()) },
      to: {}
    },
    {
      name: 'folder-cycle',
      comment: 'two folders of lib/ may not import each other, directly or round a longer loop',
      severity: 'error',
      scope: 'folder',
      from: { path: '^lib/' },
      to: { circular: true }
    },
    {
      name: 'no-circular',
      comment: 'no module imports itself back, directly or round a longer loop (a JSDoc type included)',
      severity: 'error',
      from: { path: '^(lib|bin)/' },
      to: { circular: true }
    },
    {
      name: 'hot-path-prom-client',
      comment: 'the generator threads run worker.js for every request: prom-client stays out of them',
      severity: 'error',
      from: { path: '^lib/generator/worker\\.js$' },
      to: { path: '(^|/)node_modules/prom-client/', reachable: true }
    }
  ],
  options: {
    // JSDoc types (import('...').Type) are dependencies too: a type may not climb either
    detectJSDocImports: true,
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6']
  }
}
