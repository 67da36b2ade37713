// The kustomize directory of one run on Kubernetes: deploy/k8s with the
// number of instances, the start time, the image, the Secret and the load
// filled in, and the Prometheus operator's component beside it. Comments of
// the base are kept, so the result reads like the base.
import { readFile } from 'node:fs/promises'
import { parseDocument, isMap, isSeq } from 'yaml'
import { shippedPrometheusRule } from './prometheus-rule.js'

const BASE = new URL('../../deploy/k8s/', import.meta.url)
export const COMPONENT_DIR = 'components/prometheus-operator'
// Where the pods see the results volume of --results-claim.
export const RESULTS_MOUNT = '/var/lib/pgloadgen/results'
const COMPONENT_FILES = ['kustomization.yaml', 'pod-monitor.yaml']

// The pods' own flags, before the load's: what the manifests decide. The
// base's Job starts with exactly these (checked by test/k8s-manifests.test.js).
export const POD_ARGS = Object.freeze([
  'run',
  '--http-host=0.0.0.0',
  '--http-port=9800',
  '--instance=$(JOB_COMPLETION_INDEX)/$(PGLOADGEN_INSTANCES)',
  '--start-at=$(PGLOADGEN_START_AT)',
  '--connect-timeout=60',
  '--events=/var/lib/pgloadgen/events.ndjson',
  '--json'
])

/**
 * @typedef {object} RenderOptions
 * @property {number} instances
 * @property {Date} startAt
 * @property {string} image
 * @property {string} urlSecret          name of the Secret whose key "url" is the database URL
 * @property {string | null} namespace
 * @property {boolean} prometheusOperator  include the PodMonitor and PrometheusRule
 * @property {string | null} [resultsClaim]  a PersistentVolumeClaim the pods record their runs to
 * @property {string[]} loadArgs         the load's flags, files already under the mount
 * @property {import('./load-args.js').LoadFile[]} files
 * @property {string} command            how it was rendered, for the header
 */

/**
 * The files of the directory, by relative path.
 * @param {RenderOptions} options
 * @returns {Promise<Map<string, string | Buffer>>}
 */
export async function renderManifests(options) {
  /** @type {Map<string, string | Buffer>} */
  const out = new Map()
  out.set('kustomization.yaml', kustomization(await base('kustomization.yaml'), options))
  out.set('job.yaml', job(await base('job.yaml'), options))
  out.set('service.yaml', await readFile(new URL('service.yaml', BASE), 'utf8'))
  for (const file of options.files) out.set(`load/${file.key}`, file.content)
  for (const name of COMPONENT_FILES)
    out.set(`${COMPONENT_DIR}/${name}`, await readFile(new URL(`${COMPONENT_DIR}/${name}`, BASE), 'utf8'))
  out.set(`${COMPONENT_DIR}/prometheus-rule.yaml`, await shippedPrometheusRule())
  return out
}

/** The start time as the pods get it: ISO 8601 in UTC, whole seconds. */
export function formatStartAt(/** @type {Date} */ date) {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** @param {string} name */
async function base(name) {
  return parseDocument(await readFile(new URL(name, BASE), 'utf8'))
}

/**
 * @param {import('yaml').Document} doc
 * @param {RenderOptions} options
 */
function kustomization(doc, options) {
  // The base's header (on its first key) says how to use the base: replaced.
  if (isMap(doc.contents) && doc.contents.items.length > 0) {
    const firstKey = /** @type {any} */ (doc.contents.items[0].key)
    doc.contents.commentBefore = undefined
    firstKey.commentBefore = undefined
  }
  doc.commentBefore = [
    ` Written by: ${options.command}`,
    ` ${options.instances} instance${options.instances === 1 ? '' : 's'} of pgloadgen, starting at ${formatStartAt(options.startAt)};`,
    ` the database URL is the key "url" of the Secret ${options.urlSecret}.`,
    '',
    `   kubectl create secret generic ${options.urlSecret} --from-literal=url='postgres://user:password@host:5432/db'`,
    '   kubectl apply -k DIR            (or: kubectl kustomize DIR)',
    '',
    ' The Job runs once: delete it (kubectl delete -k DIR) before rendering and applying again.'
  ].join('\n')
  const generators = /** @type {any[]} */ (doc.toJS().configMapGenerator)
  const run = generators.findIndex(g => g.name === 'pgloadgen-run')
  const load = generators.findIndex(g => g.name === 'pgloadgen-load')
  doc.setIn(
    ['configMapGenerator', run, 'literals'],
    doc.createNode([`PGLOADGEN_INSTANCES=${options.instances}`, `PGLOADGEN_START_AT=${formatStartAt(options.startAt)}`])
  )
  if (options.files.length > 0) {
    doc.setIn(['configMapGenerator', load, 'files'], doc.createNode(options.files.map(file => `load/${file.key}`)))
  } else {
    // Nothing to mount but the ConfigMap stays, so that the Job's volume exists.
    doc.deleteIn(['configMapGenerator', load, 'files'])
    doc.setIn(['configMapGenerator', load, 'literals'], doc.createNode([]))
  }
  if (options.namespace) doc.set('namespace', options.namespace)
  if (options.prometheusOperator) doc.set('components', doc.createNode([COMPONENT_DIR]))
  return doc.toString({ lineWidth: 0 })
}

/**
 * @param {import('yaml').Document} doc
 * @param {RenderOptions} options
 */
function job(doc, options) {
  doc.setIn(['spec', 'parallelism'], options.instances)
  doc.setIn(['spec', 'completions'], options.instances)
  const containers = doc.getIn(['spec', 'template', 'spec', 'containers'])
  if (!isSeq(containers)) throw new Error('deploy/k8s/job.yaml has no containers')
  const container = containers.items[0]
  if (!isMap(container)) throw new Error('deploy/k8s/job.yaml: the container is not a map')
  // No imagePullPolicy: Kubernetes's default pulls :latest (or no tag)
  // every time and any other tag once.
  container.set('image', options.image)
  // With a results volume, each pod records its run there (its events go
  // with it), so that the runs can be merged; else its summary goes to its log.
  const podArgs = options.resultsClaim
    ? [
        ...POD_ARGS.filter(arg => !arg.startsWith('--events=')),
        `--record=${RESULTS_MOUNT}/instance-$(JOB_COMPLETION_INDEX)`
      ]
    : [...POD_ARGS]
  const args = doc.createNode([...podArgs, ...options.loadArgs])
  args.items[podArgs.length - 1].comment = ' the load, as given to k8s render after --'
  container.set('args', args)
  const env = /** @type {import('yaml').YAMLSeq} */ (container.get('env'))
  for (const item of env.items) {
    if (isMap(item) && item.get('name') === 'PGLOADGEN_PG_URL') {
      item.setIn(['valueFrom', 'secretKeyRef', 'name'], options.urlSecret)
    }
  }
  if (options.resultsClaim) {
    const mounts = /** @type {import('yaml').YAMLSeq} */ (container.get('volumeMounts'))
    mounts.add(doc.createNode({ name: 'results', mountPath: RESULTS_MOUNT }))
    const volumes = /** @type {import('yaml').YAMLSeq} */ (doc.getIn(['spec', 'template', 'spec', 'volumes']))
    volumes.add(doc.createNode({ name: 'results', persistentVolumeClaim: { claimName: options.resultsClaim } }))
  }
  return doc.toString({ lineWidth: 0 })
}
