// The generator itself killed with SIGKILL mid-run on the embedded server:
// the next run on the same data directory starts cleanly, whether the
// server outlived the generator (it is used as it is) or died with it too
// (it is started again, after crash recovery), and nothing acknowledged is
// missing.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { CliRun, runCli, waitFor } from '../helpers/cli.js'
import { requestsDone } from '../helpers/disruption.js'
import { killServerProcesses } from '../helpers/private-pg.js'
import { tempDataDir } from '../helpers/embedded.js'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { createLogger } from '../../lib/log.js'
import { isAlive } from '../helpers/process.js'

/** @param {string} dataDir */
async function postmasterPid(dataDir) {
  return Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0])
}

/**
 * A run on the data directory, killed with SIGKILL once it does requests.
 * @param {import('tap').Test} t
 * @param {string} dataDir
 */
async function killedRun(t, dataDir) {
  const generator = new CliRun(['run', '--data-dir', dataDir, '-c', '2', '-d', '60', '-p', '0'], { t })
  // killed under load: once the embedded server is up and requests are done
  const metricsUrl = await generator.metricsUrl()
  await waitFor(async () => (await requestsDone(metricsUrl)) > 100, { what: 'requests to be done', timeoutMs: 60000 })
  generator.child.kill('SIGKILL')
  const result = await generator.exited
  t.equal(result.signal, 'SIGKILL', 'the generator was killed with SIGKILL')
}

/**
 * The next run on the same data directory: exit 0, work done, nothing missing.
 * @param {import('tap').Test} t
 * @param {string} dataDir
 */
async function assertCleanRun(t, dataDir) {
  const result = await runCli(['run', '--data-dir', dataDir, '-c', '2', '-d', '2', '--json', '-p', '0'], { t })
  t.equal(result.code, 0, `the next run on the data directory: exit 0; stderr: ${result.stderr.slice(-1500)}`)
  t.ok(result.summary?.acknowledged_inserts > 0, `it did work (${result.summary?.acknowledged_inserts} inserts)`)
  t.equal(result.summary?.acknowledged_missing, 0, 'nothing acknowledged is missing, from this run')
  return result
}

t.test('SIGKILL to the generator: the server it left running is used by the next run', async t => {
  const dataDir = await tempDataDir(t)
  t.teardown(() =>
    new EmbeddedServer({ dataDir, profileFile: resolveProfile('default'), log: createLogger({ level: 'warn' }) })
      .shutdown()
      .catch(() => {})
  )
  await killedRun(t, dataDir)
  const pid = await postmasterPid(dataDir)
  t.ok(isAlive(pid), 'the embedded server outlived the generator')
  const result = await assertCleanRun(t, dataDir)
  t.match(result.stderr, /already running/, 'the next run says it uses the server already running')
})

t.test('SIGKILL to the generator and to every server process: the next run recovers the server', async t => {
  const dataDir = await tempDataDir(t)
  t.teardown(() =>
    new EmbeddedServer({ dataDir, profileFile: resolveProfile('default'), log: createLogger({ level: 'warn' }) })
      .shutdown()
      .catch(() => {})
  )
  await killedRun(t, dataDir)
  const killed = await killServerProcesses(await postmasterPid(dataDir))
  t.pass(`SIGKILL to all ${killed.length} server processes; postmaster.pid is left behind`)
  const result = await assertCleanRun(t, dataDir)
  t.match(result.stderr, /embedded PostgreSQL started/, 'the next run started the server again')
  const log = await readFile(path.join(dataDir, 'pgloadgen-server.log'), 'utf8')
  t.match(log, /database system was interrupted|was not properly shut down/, 'after crash recovery')
})
