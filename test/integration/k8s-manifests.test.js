// deploy/k8s without a cluster: `kubectl kustomize` builds the base, and the
// base with the Prometheus operator's component, into objects that pass the
// Kubernetes API schemas (kubernetes-models) and the operator's
// (@kubernetes-models/prometheus-operator), and that fit together: an
// Indexed Job of N pods, N from one ConfigMap, each pod told its index and
// the start time, the database URL from a Secret, a headless Service and a
// PodMonitor that find the pods, the recording rules of
// deploy/prometheus/pgloadgen-rules.yml. Broken objects fail the same
// validation, so that it is known to check something.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { REPO } from '../helpers/cli.js'
import { kustomize, missingKubectl, schemaProblems } from '../helpers/k8s.js'
import { checkObjects, RULES } from '../helpers/k8s-checks.js'
import { prometheusRuleYaml } from '../../lib/k8s/prometheus-rule.js'

const BASE = join(REPO, 'deploy', 'k8s')
const COMPONENT = join(BASE, 'components', 'prometheus-operator')

/**
 * An overlay of the base with the component, in a temporary directory
 * (kustomize refuses absolute paths in a kustomization).
 * @param {any} t
 */
function overlayWithComponent(t) {
  const dir = mkdtempSync(join(tmpdir(), 'pgloadgen-k8s-overlay-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    ['resources:', `  - ${relative(dir, BASE)}`, 'components:', `  - ${relative(dir, COMPONENT)}`, ''].join('\n')
  )
  return dir
}

const missing = missingKubectl()
if (missing) {
  t.fail(missing)
} else {
  t.test('kubectl kustomize deploy/k8s: valid objects that fit together', async t => {
    const objects = kustomize(BASE)
    t.same(
      objects.map(o => o.kind).sort(),
      ['ConfigMap', 'ConfigMap', 'Job', 'Service'],
      'the base: the Job, the Service and two ConfigMaps'
    )
    t.notOk(
      objects.some(o => o.kind === 'PodMonitor' || o.kind === 'PrometheusRule'),
      "no object of the operator's CRDs in the base"
    )
    await checkObjects(t, objects)
  })

  t.test('with the prometheus-operator component: a PodMonitor and the recording rules', async t => {
    const objects = kustomize(overlayWithComponent(t))
    t.same(
      objects.map(o => o.kind).sort(),
      ['ConfigMap', 'ConfigMap', 'Job', 'PodMonitor', 'PrometheusRule', 'Service'],
      "the base and the component's two objects"
    )
    await checkObjects(t, objects)
  })

  t.test('the checked-in copies are what they copy', async t => {
    t.equal(
      readFileSync(join(COMPONENT, 'prometheus-rule.yaml'), 'utf8'),
      prometheusRuleYaml(readFileSync(RULES, 'utf8')),
      'prometheus-rule.yaml is the rules file as k8s render writes it (write it again: ' +
        "node -e \"import('./lib/k8s/prometheus-rule.js').then(async m => process.stdout.write(await " +
        'm.shippedPrometheusRule()))" > deploy/k8s/components/prometheus-operator/prometheus-rule.yaml)'
    )
    t.equal(
      readFileSync(join(BASE, 'load', 'job-queue.js'), 'utf8'),
      readFileSync(join(REPO, 'notes', 'workloads', 'job-queue.js'), 'utf8'),
      "the base's workload is notes/workloads/job-queue.js (kustomize reads no file outside deploy/k8s)"
    )
  })

  t.test('broken objects fail the validation', async t => {
    const objects = kustomize(overlayWithComponent(t))
    const pick = (/** @type {string} */ kind) => structuredClone(objects.find(o => o.kind === kind))

    const job = pick('Job')
    job.spec.parallelism = '3'
    t.match(
      (await schemaProblems(job)).join('\n'),
      /parallelism must be integer/,
      'a Job whose parallelism is a string'
    )
    const indexed = pick('Job')
    indexed.spec.completionMode = 'indexed'
    t.match(
      (await schemaProblems(indexed)).join('\n'),
      /completionMode must be equal to one of the allowed values/,
      'a completionMode that is not Indexed or NonIndexed'
    )
    const nameless = pick('Job')
    delete nameless.spec.template.spec.containers[0].name
    t.match(
      (await schemaProblems(nameless)).join('\n'),
      /must have required property 'name'|must have required property name/,
      'a container without a name'
    )
    const service = pick('Service')
    service.spec.ports[0].port = 'metrics'
    t.match((await schemaProblems(service)).join('\n'), /port must be integer/, 'a Service port that is not a number')
    const monitor = pick('PodMonitor')
    monitor.spec.podMetricsEndpoints = 'metrics'
    t.match(
      (await schemaProblems(monitor)).join('\n'),
      /podMetricsEndpoints must be array/,
      'a PodMonitor whose endpoints are not a list'
    )
    const rule = pick('PrometheusRule')
    delete rule.spec.groups[0].name
    t.match((await schemaProblems(rule)).join('\n'), /name/, 'a rule group without a name')
    t.match(
      (await schemaProblems({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).join('\n'),
      /no schema/,
      'a kind without a schema is a problem, not a pass'
    )
  })
}
