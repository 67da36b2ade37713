// pgloadgen k8s render: the directory it writes builds with `kubectl
// kustomize` into valid objects (test/helpers/k8s-checks.js) holding what
// was asked: N instances, the start time, the image, the Secret, the run's
// flags with their files moved into the load's ConfigMap. Without --out the
// built objects go to stdout. Bad input is one line and exit 2, with
// nothing written; no database URL or password reaches the output.
import t from 'tap'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseAllDocuments } from 'yaml'
import { REPO, runCli } from '../helpers/cli.js'
import { kustomize, missingKubectl } from '../helpers/k8s.js'
import { checkObjects } from '../helpers/k8s-checks.js'

const SCRIPT = 'SELECT 1;\n'
const JOB_QUEUE = join(REPO, 'notes', 'workloads', 'job-queue.js')

/** @param {any} t */
function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'pgloadgen-k8s-render-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * @param {any[]} objects
 * @param {string} kind
 * @param {string} [prefix]
 */
const find = (objects, kind, prefix = '') => objects.find(o => o.kind === kind && o.metadata.name.startsWith(prefix))

const missing = missingKubectl()
if (missing) {
  t.fail(missing)
} else {
  t.test("a pgbench load on 5 instances, with the Prometheus operator's objects", async t => {
    const dir = scratch(t)
    const script = join(dir, 'probe.sql')
    writeFileSync(script, SCRIPT)
    const out = join(dir, 'manifests')
    const before = Date.now()
    const result = await runCli(
      [
        'k8s',
        'render',
        '--instances',
        '5',
        '--start-in',
        '2m',
        '--out',
        out,
        '--image',
        'registry.example/pgloadgen:1.0',
        '--url-secret',
        'load-db',
        '--namespace',
        'load',
        '--prometheus-operator',
        '--',
        '-f',
        `${script}@3`,
        '-b',
        'select-only@1',
        '-c',
        '10',
        '-R',
        '500',
        '-d',
        '1m'
      ],
      { env: { PGLOADGEN_PG_URL: 'postgres://load:hunter2@db.example:5432/load' } }
    )
    const after = Date.now()
    t.equal(result.code, 0, `exit 0\n${result.stderr}`)
    t.equal(result.stdout, '', 'nothing on stdout')

    const objects = kustomize(out)
    await checkObjects(t, objects)
    t.notMatch(JSON.stringify(objects), /hunter2/, 'the password of PGLOADGEN_PG_URL is nowhere')
    t.ok(
      objects.every(o => o.metadata.namespace === 'load'),
      'every object in the namespace'
    )
    const job = find(objects, 'Job')
    t.equal(job.spec.parallelism, 5, '5 pods at once')
    const [container] = job.spec.template.spec.containers
    t.equal(container.image, 'registry.example/pgloadgen:1.0', 'the image')
    t.equal(
      container.env.find((/** @type {any} */ e) => e.name === 'PGLOADGEN_PG_URL').valueFrom.secretKeyRef.name,
      'load-db',
      'the Secret'
    )
    t.same(
      container.args.slice(-9),
      ['--file=/etc/pgloadgen/load/probe.sql@3', '-b', 'select-only@1', '-c', '10', '-R', '500', '-d', '1m'],
      "the run's flags, the script at its mount, its weight kept"
    )
    const mount = container.volumeMounts.find((/** @type {any} */ m) => m.name === 'load')
    t.equal(mount.mountPath, '/etc/pgloadgen/load', "the load's ConfigMap mounted there")
    t.same(
      find(objects, 'ConfigMap', 'pgloadgen-load-').data,
      { 'probe.sql': SCRIPT },
      "the script in the load's ConfigMap"
    )

    const run = find(objects, 'ConfigMap', 'pgloadgen-run-')
    t.equal(run.data.PGLOADGEN_INSTANCES, '5', 'N = 5')
    const startMs = Date.parse(run.data.PGLOADGEN_START_AT)
    t.match(run.data.PGLOADGEN_START_AT, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'ISO 8601, UTC, whole seconds')
    t.ok(
      startMs >= before + 120000 - 1000 && startMs <= after + 121000,
      `the start is 2 minutes after the render (${run.data.PGLOADGEN_START_AT})`
    )
    t.ok(find(objects, 'PodMonitor') && find(objects, 'PrometheusRule'), 'the PodMonitor and the PrometheusRule')
  })

  t.test('--results-claim: each pod records its run to the claim, for pgloadgen merge', async t => {
    const out = join(scratch(t), 'manifests')
    const result = await runCli([
      'k8s',
      'render',
      '--instances',
      '3',
      '--results-claim',
      'load-results',
      '--out',
      out,
      '--',
      '-c',
      '6',
      '-d',
      '1m'
    ])
    t.equal(result.code, 0, `exit 0\n${result.stderr}`)
    const objects = kustomize(out)
    await checkObjects(t, objects)
    const pod = find(objects, 'Job').spec.template.spec
    const [container] = pod.containers
    t.ok(
      container.args.includes('--record=/var/lib/pgloadgen/results/instance-$(JOB_COMPLETION_INDEX)'),
      'each instance records to its own directory on the claim'
    )
    t.notOk(
      container.args.some((/** @type {string} */ arg) => arg.startsWith('--events=')),
      'events go with the recording, not to a file the pods would share'
    )
    t.same(
      pod.volumes.find((/** @type {any} */ v) => v.name === 'results'),
      { name: 'results', persistentVolumeClaim: { claimName: 'load-results' } },
      'the claim as a volume'
    )
    t.equal(
      container.volumeMounts.find((/** @type {any} */ m) => m.name === 'results').mountPath,
      '/var/lib/pgloadgen/results',
      'mounted where --record points'
    )
    const bad = await runCli([
      'k8s',
      'render',
      '--instances',
      '3',
      '--results-claim',
      'Bad_Name',
      '--out',
      join(scratch(t), 'x'),
      '--',
      '-c',
      '6'
    ])
    t.equal(bad.code, 2, 'a claim name that is not a DNS name: exit 2')
    t.equal(bad.stderr.trim().split('\n').length, 1, `one line (${bad.stderr.trim()})`)
  })

  t.test('a workload module goes into the ConfigMap as an ES module', async t => {
    const out = join(scratch(t), 'manifests')
    const result = await runCli([
      'k8s',
      'render',
      '--instances',
      '2',
      '--out',
      out,
      '--',
      '--workload',
      JOB_QUEUE,
      '--payload-bytes',
      '500',
      '-c',
      '4'
    ])
    t.equal(result.code, 0, `exit 0\n${result.stderr}`)
    const objects = kustomize(out)
    await checkObjects(t, objects)
    t.notOk(find(objects, 'PodMonitor'), 'no PodMonitor without --prometheus-operator')
    const [container] = find(objects, 'Job').spec.template.spec.containers
    t.ok(container.args.includes('--workload=/etc/pgloadgen/load/job-queue.js'), '--workload points at the mount')
    t.ok(container.args.includes('--payload-bytes') && container.args.includes('500'), "the workload's own flags kept")
    const load = find(objects, 'ConfigMap', 'pgloadgen-load-').data
    t.same(Object.keys(load).sort(), ['job-queue.js', 'package.json'], 'the module, and a package.json')
    t.same(JSON.parse(load['package.json']), { type: 'module' }, 'that makes Node read it as an ES module')
  })

  t.test('without --out: the built objects on stdout', async t => {
    const result = await runCli(['k8s', 'render', '--instances', '3', '--', '-c', '6', '-d', '30s'])
    t.equal(result.code, 0, `exit 0\n${result.stderr}`)
    const objects = parseAllDocuments(result.stdout).map(doc => doc.toJS())
    t.same(
      objects.map(o => o.kind).sort(),
      ['ConfigMap', 'ConfigMap', 'Job', 'Service'],
      'the Job, the Service and the ConfigMaps'
    )
    await checkObjects(t, objects)
  })

  t.test('bad input: one line, exit 2, nothing written', async t => {
    const dir = scratch(t)
    const full = join(dir, 'full')
    mkdirSync(full)
    writeFileSync(join(full, 'kept'), '')
    const out = join(dir, 'out')
    // A module that loads, but as a directory: a ConfigMap has no directories.
    const moduleDir = join(dir, 'module')
    mkdirSync(moduleDir)
    writeFileSync(join(moduleDir, 'index.js'), readFileSync(JOB_QUEUE))
    writeFileSync(join(moduleDir, 'package.json'), '{ "type": "module" }\n')
    const cases = [
      [['--instances', '0'], /--instances must be between 1 and 100000/],
      [['--instances', 'three'], /--instances must be a whole number/],
      [['--instances', '3', '--start-in', 'soon'], /--start-in must be a duration/],
      [['--instances', '3', '--replicas', '2'], /Unknown argument: replicas/],
      [['--instances', '3', '--', '--bogus-flag'], /Unknown argument: bogus-flag/],
      [['--instances', '3', '--', '-f', join(dir, 'nope.sql')], /could not open file .*nope\.sql/],
      [['--instances', '3', '--', '--workload', moduleDir], /is not a file: a ConfigMap holds files/],
      [['--instances', '3', '--', '-c', '2'], /2 clients cannot be shared by 3 instances/],
      [['--instances', '3', '--', '--instance', '0/3'], /--instance is not for the run's flags/],
      [['--instances', '3', '--', 'postgres://load:hunter2@db.example/load'], /take no database URL/],
      [['--instances', '3', '--', '--reset', 'postgres://load:hunter2@db.example/load'], /take no database URL/],
      [['--instances', '3', '--url-secret', 'Load_DB'], /--url-secret must be a Secret's name/],
      [['--instances', '3', '--out', full], /is not empty/]
    ]
    for (const [args, expected] of /** @type {[string[], RegExp][]} */ (cases)) {
      const withOut = args.includes('--out') ? args : ['--out', out, ...args]
      const result = await runCli(['k8s', 'render', ...withOut])
      const shown = args.join(' ')
      t.equal(result.code, 2, `${shown}: exit 2`)
      t.match(result.stderr, expected, `${shown}: ${result.stderr.trim()}`)
      t.equal(result.stderr.trim().split('\n').length, 1, `${shown}: one line`)
      t.notMatch(result.stderr, /hunter2|\n\s+at /, `${shown}: no password, no stack trace`)
      t.notOk(existsSync(out), `${shown}: no directory written`)
    }
  })
}
