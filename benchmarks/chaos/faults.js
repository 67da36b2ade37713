// The chaos soak's faults, each done to the server under the load: a fast
// or immediate restart, the run's backends terminated or one of them
// killed, a blackhole of the server's link, its processes stopped, its
// WAL's dataset full, the run's statements made slower than the request
// timeout, and a burst of connections past max_connections from another
// process. Each resolves when the fault is over (the server answering
// again where the fault took it down) and says what it did.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { BURST_ROLE, MAX_CONNECTIONS } from './server.js'

/**
 * @typedef {object} FaultContext
 * @property {import('./server.js').ChaosServer} server
 * @property {import('./schedule.js').PlannedFault} planned
 * @property {number} requestTimeoutS   the load's --request-timeout
 */

/** @typedef {(context: FaultContext) => Promise<string>} Fault */

const BURST = fileURLToPath(new URL('./burst.js', import.meta.url))
// the run's client connections, as pg_stat_activity shows them
const RUN_BACKENDS =
  "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgloadgen' AND backend_type = 'client backend'"
// how long a fault may wait for the server to answer again: crash recovery on a loaded machine
const RECOVERY_MS = 300000
// the burst: past max_connections by this many
const BURST_EXTRA = 10

/** @param {number} ms */
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

/** @type {Record<import('./schedule.js').FaultKind, Fault>} */
export const FAULTS = {
  restart_fast: ({ server }) => restart(server, 'fast'),
  restart_immediate: ({ server }) => restart(server, 'immediate'),
  async terminate_backends({ server }) {
    const rows = await server.query(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM (${RUN_BACKENDS}) b`
    )
    return `pg_terminate_backend on ${rows[0].n} backends of the run`
  },
  async kill_backend({ server }) {
    const rows = await server.query(`${RUN_BACKENDS} ORDER BY pid LIMIT 1`)
    if (rows.length === 0) return 'no backend of the run to kill'
    process.kill(Number(rows[0].pid), 'SIGKILL')
    // the postmaster ends every session and recovers: over when it accepts again
    await sleep(500)
    await answering(server)
    return `SIGKILL to backend ${rows[0].pid}: the postmaster ended every session and recovered`
  },
  async blackhole({ server, planned }) {
    await server.linkDown()
    await sleep(planned.hold_s * 1000)
    await server.linkUp()
    return `the server's link down for ${planned.hold_s} s`
  },
  async sigstop({ server, planned }) {
    const pids = server.pids()
    signal(pids, 'SIGSTOP')
    await sleep(planned.hold_s * 1000)
    signal(pids, 'SIGCONT')
    return `SIGSTOP to the ${pids.length} server processes for ${planned.hold_s} s`
  },
  wal_full: fillWal,
  async slow_statements({ server, planned, requestTimeoutS }) {
    const sleepS = Math.ceil(requestTimeoutS * 3)
    await server.query(
      'CREATE TRIGGER chaos_slow BEFORE INSERT OR UPDATE ON test_table FOR EACH ROW ' +
        `EXECUTE FUNCTION chaos_slow('${sleepS}')`
    )
    await sleep(planned.hold_s * 1000)
    await server.query('DROP TRIGGER chaos_slow ON test_table')
    return (
      `inserts and updates slept ${sleepS} s (pg_sleep in a trigger) for ${planned.hold_s} s, past the ` +
      `${requestTimeoutS} s request timeout`
    )
  },
  connection_burst: burst
}

/**
 * Stop (fast or immediate), then start: over when it accepts again.
 * @param {import('./server.js').ChaosServer} server
 * @param {'fast' | 'immediate'} mode
 */
async function restart(server, mode) {
  await server.stop(mode)
  await server.start()
  return `pg_ctl stop -m ${mode}, then start`
}

/**
 * The WAL's dataset full: a snapshot taken, so that what the server
 * writes over (recycled segments) needs new space as a new file does, and
 * the quota lowered to what the dataset uses and a mebibyte or a few. The next WAL
 * written past it fails and the server PANICs; its crash recovery must
 * write WAL too, so the postmaster ends. After the hold, the quota goes
 * back and the snapshot is destroyed, and the server is started again when
 * it has ended.
 * @param {FaultContext} context
 */
async function fillWal({ server, planned }) {
  const panicsBefore = server.panics().length
  await server.holdWal(true)
  try {
    // ZFS reports what is used as of its last transaction group: the load
    // may be past it already, by more on a loaded machine, whose groups
    // take longer; so the margin doubles with each refusal, to 16 MiB,
    // which the load still writes within the hold
    for (let attempt = 1; ; attempt++) {
      const margin = 2 ** Math.min(attempt - 1, 4) * 1024 * 1024
      try {
        await server.setWalQuota((await server.walUsed()) + margin)
        break
      } catch (err) {
        if (attempt === 20 || !/less than current used/.test(String(/** @type {any} */ (err).stderr))) throw err
        await sleep(300)
      }
    }
    await sleep(planned.hold_s * 1000)
  } finally {
    await server.setWalQuota(null)
    await server.holdWal(false)
  }
  const restarted = await answering(server)
  const panics = server.panics().length - panicsBefore
  return (
    `pg_wal's dataset full for ${planned.hold_s} s: ${panics} PANIC line${panics === 1 ? '' : 's'} in the log; ` +
    (restarted ? 'the server had ended and the soak started it again' : 'the server ran on')
  )
}

/**
 * Waits until the server answers over its socket, starting it when no
 * postmaster runs any more. Whether it had to be started.
 * @param {import('./server.js').ChaosServer} server
 */
async function answering(server) {
  const deadline = Date.now() + RECOVERY_MS
  let started = false
  for (;;) {
    try {
      await server.query('SELECT 1')
      return started
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`the server did not answer again: ${/** @type {Error} */ (err).message}`, { cause: err })
    }
    if (!(await server.running())) {
      await server.start()
      started = true
    } else await sleep(500)
  }
}

/**
 * Another process opens max_connections and more as a role that is not a
 * superuser, holds them, and closes them.
 * @param {FaultContext} context
 */
async function burst({ server, planned }) {
  const url = `postgres://${BURST_ROLE}@${server.address}:5432/chaos`
  const child = spawn(
    process.execPath,
    [BURST, url, String(MAX_CONNECTIONS + BURST_EXTRA), String(planned.hold_s * 1000)],
    { stdio: ['ignore', 'pipe', 'inherit'] }
  )
  let out = ''
  child.stdout.on('data', chunk => {
    out += chunk
  })
  const code = await new Promise(resolve => child.on('close', resolve))
  if (code !== 0) throw new Error(`the connection burst exited with ${code}`)
  const { opened, refused } = JSON.parse(out)
  return `another process opened ${opened} connections and was refused ${refused} (max_connections ${MAX_CONNECTIONS})`
}

/**
 * @param {number[]} pids
 * @param {NodeJS.Signals} name
 */
function signal(pids, name) {
  for (const pid of pids) {
    try {
      process.kill(pid, name)
    } catch {
      // gone meanwhile
    }
  }
}
