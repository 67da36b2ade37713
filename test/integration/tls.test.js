// SSL as libpq means it, for every connection of a run (the hot path's wire
// client, the statistics and the insert check on node-postgres): a real
// server with a certificate signed by a test CA, and pg_hba.conf refusing
// any connection without SSL, so that a run that works used SSL throughout.
import t from 'tap'
import { execFile } from 'node:child_process'
import { copyFile, chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { runCli, lines, waitFor } from '../helpers/cli.js'
import { startEmbedded } from '../helpers/embedded.js'
import { query, withClient } from '../helpers/pg.js'
import { parsePgUrl } from '../../lib/config/pg-url.js'
import { WireConnection } from '../../lib/wire/wire-connection.js'

const run = promisify(execFile)
const certs = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-tls-'))
t.teardown(() => rm(certs, { recursive: true, force: true }))

/**
 * A CA (key and certificate) named `name` in the certificate directory.
 * @param {string} name
 */
async function makeCa(name) {
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    path.join(certs, `${name}.key`),
    '-out',
    path.join(certs, `${name}.pem`),
    '-days',
    '2',
    '-subj',
    `/CN=${name}`
  ])
  return path.join(certs, `${name}.pem`)
}

const caFile = await makeCa('pgloadgen-test-ca')
const otherCaFile = await makeCa('some-other-ca')
// The server's certificate, for the name localhost only, signed by the test CA.
await writeFile(path.join(certs, 'ext.cnf'), 'subjectAltName=DNS:localhost\n')
await run('openssl', [
  'req',
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:prime256v1',
  '-nodes',
  '-keyout',
  path.join(certs, 'server.key'),
  '-out',
  path.join(certs, 'server.csr'),
  '-subj',
  '/CN=localhost'
])
await run('openssl', [
  'x509',
  '-req',
  '-in',
  path.join(certs, 'server.csr'),
  '-CA',
  caFile,
  '-CAkey',
  path.join(certs, 'pgloadgen-test-ca.key'),
  '-CAcreateserial',
  '-out',
  path.join(certs, 'server.pem'),
  '-days',
  '2',
  '-extfile',
  path.join(certs, 'ext.cnf')
])

const { server, adminUrl, dataDir } = await startEmbedded(t)
for (const file of ['server.pem', 'server.key']) {
  const target = path.join(dataDir, file)
  await copyFile(path.join(certs, file), target)
  await chmod(target, 0o600)
  await server.giveToServer(target)
}
await query(adminUrl, "ALTER SYSTEM SET ssl_cert_file = 'server.pem'")
await query(adminUrl, "ALTER SYSTEM SET ssl_key_file = 'server.key'")
await query(adminUrl, 'ALTER SYSTEM SET ssl = on')
// First match wins: connections without SSL are refused before any other line.
const hba = path.join(dataDir, 'pg_hba.conf')
await writeFile(hba, 'hostnossl all all all reject\n' + (await readFile(hba, 'utf8')))
await query(adminUrl, 'SELECT pg_reload_conf()')

const port = new URL(adminUrl).port
const password = decodeURIComponent(new URL(adminUrl).password)
/**
 * The lab database's URL on host with the given query string.
 * @param {string} host
 * @param {string} params
 */
const urlOn = (host, params) =>
  `postgres://postgres:${encodeURIComponent(password)}@${host}:${port}/pgloadgen?${params}`
const caParam = `sslrootcert=${encodeURIComponent(caFile)}`

t.test('the server refuses connections without SSL', async t => {
  await t.rejects(
    query(urlOn('127.0.0.1', 'sslmode=disable'), 'SELECT 1'),
    /no encryption|pg_hba/,
    'a plain connection is refused'
  )
  const row = (
    await query(
      parsePgUrl(urlOn('127.0.0.1', 'sslmode=require')).connectionString,
      'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'
    )
  ).rows[0]
  t.equal(row.ssl, true, 'an SSL connection is accepted')
})

/**
 * A short run against url; returns the CLI's result.
 * @param {import('tap').Test} t
 * @param {string} url
 */
const shortRun = (t, url) =>
  runCli(['run', url, '-c', '2', '-d', '2', '--json', '-p', '0', '--stats-interval', '1', '--connect-timeout', '5'], {
    t
  })

/** @type {{ name: string, url: () => string }[]} */
const accepted = [
  {
    name: 'sslmode=require encrypts without checking the certificate (libpq)',
    url: () => urlOn('127.0.0.1', 'sslmode=require')
  },
  { name: 'sslmode=prefer takes SSL when the server offers it', url: () => urlOn('127.0.0.1', 'sslmode=prefer') },
  {
    name: 'sslmode=verify-ca checks the chain, not the host name',
    url: () => urlOn('127.0.0.1', `sslmode=verify-ca&${caParam}`)
  },
  {
    name: 'sslmode=verify-full with the right CA and host name',
    url: () => urlOn('localhost', `sslmode=verify-full&${caParam}`)
  }
]

for (const c of accepted) {
  t.test(c.name, async t => {
    const before = Number(
      (
        await query(
          parsePgUrl(urlOn('127.0.0.1', 'sslmode=require')).connectionString,
          'SELECT count(*) AS n FROM pg_stat_ssl WHERE ssl'
        )
      ).rows[0].n
    )
    t.ok(before >= 1, 'the check itself connects over SSL')
    const result = await shortRun(t, c.url())
    t.equal(result.code, 0, `exit 0; stderr: ${result.stderr.slice(-2000)}`)
    if (!t.ok(result.summary, 'a JSON summary')) return
    const done = Object.values(result.summary.requests).reduce((sum, r) => sum + r.done, 0)
    t.ok(done > 100, `requests done over SSL (${done})`)
    t.equal(result.summary.unexpected_failures, 0, 'no unexpected failure')
    t.equal(result.summary.acknowledged_missing, 0, 'the insert check ran over SSL too and found every row')
    // a statement of the statistics may time out on a loaded machine; what SSL decides is the connection itself
    t.match(result.stderr, /pg stats: connected to/, 'the statistics connection opens over SSL')
    t.notMatch(result.stderr, /pg stats: connect failed/, 'and never fails to connect')
    t.notMatch(result.stderr + result.stdout, password, 'the password is never printed')
  })
}

/** @type {{ name: string, url: () => string, problem: RegExp }[]} */
const refused = [
  {
    name: 'sslmode=verify-full refuses a host name the certificate does not name',
    url: () => urlOn('127.0.0.1', `sslmode=verify-full&${caParam}`),
    problem: /SSL|altnames|IP: 127\.0\.0\.1/i
  },
  {
    name: 'sslmode=verify-full refuses a certificate from another CA',
    url: () => urlOn('localhost', `sslmode=verify-full&sslrootcert=${encodeURIComponent(otherCaFile)}`),
    problem: /SSL|certificate/i
  },
  {
    name: 'sslmode=require with a root certificate verifies the chain (libpq)',
    url: () => urlOn('127.0.0.1', `sslmode=require&sslrootcert=${encodeURIComponent(otherCaFile)}`),
    problem: /SSL|certificate/i
  },
  {
    name: "sslmode=disable meets the server's refusal",
    url: () => urlOn('127.0.0.1', 'sslmode=disable'),
    problem: /no encryption|pg_hba/
  }
]

for (const c of refused) {
  t.test(c.name, async t => {
    const result = await shortRun(t, c.url())
    t.not(result.code, 0, `exit non-zero (${result.code})`)
    t.equal(result.signal, null, 'not killed by a signal')
    const errors = lines(result.stderr).filter(line => !/ info: /.test(line))
    t.equal(errors.length, 1, `one line says why: ${JSON.stringify(result.stderr)}`)
    t.match(errors[0], c.problem, 'it names the problem')
    t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
    t.notMatch(result.stderr, password, 'the password is never printed')
  })
}

// A run meets a refusal on node-postgres first (setup); the hot path's own
// client must refuse the same URLs, and accept the same.
t.test('the wire client reads each sslmode as node-postgres does', async t => {
  for (const c of accepted) {
    const connection = await WireConnection.connect(parsePgUrl(c.url()).connectionString, {
      applicationName: 'pgloadgen-tls-test'
    })
    const result = await connection.run(
      { name: '', text: 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()' },
      []
    )
    t.equal(result.first, 't', `${c.name}: connected, over SSL`)
    await connection.close()
  }
  for (const c of refused) {
    await t.rejects(
      WireConnection.connect(parsePgUrl(c.url()).connectionString, { applicationName: 'pgloadgen-tls-test' }),
      c.problem,
      `${c.name}: refused`
    )
  }
})

t.test('a timed-out request is cancelled over SSL too', async t => {
  // the CancelRequest goes on a connection of its own, which must be
  // encrypted as well: this server refuses any connection without SSL
  const script = path.join(certs, 'sleep.sql')
  await writeFile(script, 'SELECT pg_sleep(30);\n')
  const app = `pgloadgen_tls_cancel_${process.pid}`
  const adminSsl = parsePgUrl(urlOn('127.0.0.1', 'sslmode=require')).connectionString
  const result = await runCli(
    [
      'run',
      urlOn('127.0.0.1', `sslmode=require&application_name=${app}`),
      '-f',
      script,
      '-c',
      '2',
      '-d',
      '3',
      '-p',
      '0',
      '--json',
      '--no-pg-stats',
      '--request-timeout',
      '300ms'
    ],
    { t }
  )
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr.slice(-1000)}`)
  if (!t.ok(result.summary, 'a JSON summary')) return
  const { cancels } = result.summary
  t.ok(result.summary.timeouts >= 2, `the sleeps timed out (${result.summary.timeouts})`)
  t.ok(cancels.succeeded >= 1, `cancels reached the server over SSL (${JSON.stringify(cancels)})`)
  t.equal(cancels.sent, cancels.succeeded + cancels.gave_up, 'each cancel counted once')
  let sleeping = -1
  await waitFor(
    async () => {
      const { rows } = await query(
        adminSsl,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query LIKE '%pg_sleep%'",
        [app]
      )
      sleeping = rows[0].n
      return sleeping === 0
    },
    { what: 'no sleeping backend of the run', timeoutMs: 5000 }
  ).catch(() => {})
  t.equal(sleeping, 0, 'after the run, no backend of it is left sleeping')
})

t.test('no session of a run is left open', async t => {
  await withClient(parsePgUrl(urlOn('127.0.0.1', 'sslmode=require')).connectionString, async client => {
    const rows = await client.query(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()',
      ['pgloadgen%']
    )
    t.equal(Number(rows.rows[0].n), 0, 'no pgloadgen session is left open')
  })
})
