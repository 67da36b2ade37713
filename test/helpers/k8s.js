// Kubernetes manifests checked without a cluster: `kubectl kustomize` builds
// them (kubectl is not a Debian package: test/setup/system.sh names it when
// it is missing), and every object is validated against the API schemas of
// the npm package kubernetes-models (and @kubernetes-models/prometheus-operator
// for the operator's kinds). Those schemas check types, required fields and
// enums, not unknown fields: Kubernetes's OpenAPI leaves objects open, and
// the API server's strict field validation is what refuses a misspelt field.
import { spawnSync } from 'node:child_process'
import { parseAllDocuments } from 'yaml'

export const KUBECTL = process.env.KUBECTL ?? 'kubectl'

/** Why kubectl cannot be run here, or null when it can. */
export function missingKubectl() {
  const probe = spawnSync(KUBECTL, ['version', '--client'], { encoding: 'utf8', timeout: 60000 })
  if (probe.error)
    return (
      `kubectl cannot be run ` +
      `(${/** @type {NodeJS.ErrnoException} */ (probe.error).code ?? probe.error.message}), ` +
      `needed to build the manifests with kustomize: install kubectl from the Kubernetes project's packages ` +
      `(https://kubernetes.io/docs/tasks/tools/), or set KUBECTL`
    )
  if (probe.status !== 0) return `kubectl version --client failed: ${probe.stderr}`
  return null
}

/**
 * The objects `kubectl kustomize DIR` builds.
 * @param {string} dir
 * @returns {any[]}
 */
export function kustomize(dir) {
  const result = spawnSync(KUBECTL, ['kustomize', dir], { encoding: 'utf8', timeout: 60000 })
  if (result.error || result.status !== 0) {
    throw new Error(`kubectl kustomize ${dir} failed: ${result.error ?? result.stderr}`)
  }
  return parseAllDocuments(result.stdout).map(doc => doc.toJS())
}

// Where each API group's models are: Kubernetes's own, then the operator's.
const MODEL_PACKAGES = new Map([
  ['monitoring.coreos.com', '@kubernetes-models/prometheus-operator/monitoring.coreos.com']
])

/**
 * What is wrong with an object by its API schema: [] when nothing is, one
 * line per problem otherwise (a kind without a schema is one).
 * @param {any} object
 * @returns {Promise<string[]>}
 */
export async function schemaProblems(object) {
  const where = `${object?.kind ?? '(no kind)'} ${object?.metadata?.name ?? '(no name)'}`
  if (typeof object?.apiVersion !== 'string' || typeof object?.kind !== 'string') {
    return [`${where}: no apiVersion or kind`]
  }
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion]
  const root = MODEL_PACKAGES.get(group) ?? (group === '' ? 'kubernetes-models' : `kubernetes-models/${group}`)
  let Model
  try {
    Model = (await import(`${root}/${version}/${object.kind}`))[object.kind]
  } catch {
    return [`${where}: no schema for ${object.apiVersion} ${object.kind}`]
  }
  try {
    new Model(object).validate()
    return []
  } catch (err) {
    return String(/** @type {Error} */ (err).message)
      .split('\n')
      .filter(Boolean)
      .map(line => `${where}: ${line}`)
  }
}
