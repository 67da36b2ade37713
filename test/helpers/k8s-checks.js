// What every build of deploy/k8s must be (the base in
// test/k8s-manifests.test.js, rendered directories in test/k8s-render.test.js):
// objects valid by their API schemas that fit together.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { REPO } from './cli.js'
import { schemaProblems } from './k8s.js'
import { POD_ARGS } from '../../lib/k8s/render.js'

export const RULES = join(REPO, 'deploy', 'prometheus', 'pgloadgen-rules.yml')

/**
 * The checks every build of the manifests passes (the base here, rendered
 * directories in test/k8s-render.test.js).
 * @param {any} t
 * @param {any[]} objects
 */
export async function checkObjects(t, objects) {
  for (const object of objects) {
    t.same(await schemaProblems(object), [], `${object.kind} ${object.metadata?.name} passes its API schema`)
  }
  const text = JSON.stringify(objects)
  t.notMatch(text, /postgres(ql)?:\/\//, 'no database URL in the manifests (it comes from a Secret)')

  const job = objects.find(o => o.kind === 'Job')
  const service = objects.find(o => o.kind === 'Service')
  const run = objects.find(o => o.kind === 'ConfigMap' && o.metadata.name.startsWith('pgloadgen-run-'))
  t.ok(job && service && run, "a Job, a Service and the run's ConfigMap")
  if (!job || !service || !run) return

  const n = Number(run.data.PGLOADGEN_INSTANCES)
  t.ok(Number.isInteger(n) && n >= 1, `N = ${run.data.PGLOADGEN_INSTANCES}`)
  t.equal(job.spec.completionMode, 'Indexed', 'an Indexed Job')
  t.equal(job.spec.parallelism, n, 'parallelism = N')
  t.equal(job.spec.completions, n, 'completions = N')
  t.equal(job.spec.backoffLimit, 0, 'a failed pod is not retried (it would come after the start)')

  const pod = job.spec.template
  const [container] = pod.spec.containers
  // With a results volume the events go with each pod's recording there.
  const recorded = pod.spec.volumes?.some((/** @type {any} */ volume) => volume.name === 'results')
  const ownFlags = recorded ? POD_ARGS.filter(arg => !arg.startsWith('--events=')) : POD_ARGS
  t.same(container.args.slice(0, ownFlags.length), ownFlags, "the pods' own flags, as k8s render writes them")
  const env = new Map(container.env.map((/** @type {any} */ e) => [e.name, e]))
  for (const [, name] of container.args.join(' ').matchAll(/\$\(([A-Z_]+)\)/g)) {
    t.ok(env.has(name), `$(${name}) in the args is a variable of the container`)
  }
  t.equal(
    env.get('JOB_COMPLETION_INDEX')?.valueFrom?.fieldRef?.fieldPath,
    "metadata.annotations['batch.kubernetes.io/job-completion-index']",
    "the index from the Job controller's annotation"
  )
  for (const name of ['PGLOADGEN_INSTANCES', 'PGLOADGEN_START_AT']) {
    t.equal(env.get(name)?.valueFrom?.configMapKeyRef?.name, run.metadata.name, `${name} from the run's ConfigMap`)
  }
  t.ok(run.data.PGLOADGEN_START_AT, 'a start time')
  const url = env.get('PGLOADGEN_PG_URL')
  t.ok(
    url?.valueFrom?.secretKeyRef?.name && url.valueFrom.secretKeyRef.key === 'url',
    'the database URL from a Secret\'s key "url"'
  )

  const annotations = pod.metadata.annotations
  const port = container.ports.find((/** @type {any} */ p) => p.name === 'metrics')
  t.equal(annotations['prometheus.io/scrape'], 'true', 'prometheus.io/scrape')
  t.equal(annotations['prometheus.io/port'], String(port?.containerPort), 'prometheus.io/port is the metrics port')
  t.equal(annotations['prometheus.io/path'], '/metrics', 'prometheus.io/path')
  t.ok(
    container.args.includes(`--http-port=${port?.containerPort}`) && container.args.includes('--http-host=0.0.0.0'),
    '/metrics served on that port, on every interface'
  )

  t.equal(service.spec.clusterIP, 'None', 'the Service is headless')
  t.equal(
    pod.spec.subdomain,
    service.metadata.name,
    "the pods' subdomain is the Service: pgloadgen-I.pgloadgen resolves"
  )
  t.ok(
    Object.entries(service.spec.selector).every(([k, v]) => pod.metadata.labels[k] === v),
    'the Service selects the pods'
  )
  t.ok(
    service.spec.ports.some((/** @type {any} */ p) => p.targetPort === 'metrics'),
    'the Service points at the metrics port'
  )

  for (const volume of pod.spec.volumes.filter((/** @type {any} */ v) => v.configMap)) {
    t.ok(
      objects.some(o => o.kind === 'ConfigMap' && o.metadata.name === volume.configMap.name),
      `volume ${volume.name}: ConfigMap ${volume.configMap.name} is built too`
    )
  }

  const monitor = objects.find(o => o.kind === 'PodMonitor')
  if (monitor) {
    t.ok(
      Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => pod.metadata.labels[k] === v),
      'the PodMonitor selects the pods'
    )
    t.ok(
      monitor.spec.podMetricsEndpoints.every((/** @type {any} */ e) => e.port === port?.name && e.path === '/metrics'),
      'the PodMonitor scrapes the metrics port at /metrics'
    )
  }
  const rule = objects.find(o => o.kind === 'PrometheusRule')
  if (rule) {
    t.same(
      rule.spec.groups,
      parse(readFileSync(RULES, 'utf8')).groups,
      'the PrometheusRule holds the groups of deploy/prometheus/pgloadgen-rules.yml'
    )
  }
}
