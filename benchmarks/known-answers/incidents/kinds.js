// The incidents of the known-answer suite: each starts a real disturbance
// of the embedded server or of the machine and returns how to end it. The
// cause the lab should name first is `truth` (cause kinds of
// docs/causes.md); `profile` is the server's PostgreSQL profile.
import { spawn } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'

/**
 * @typedef {object} IncidentContext
 * @property {string} url        the load's database on the embedded server
 * @property {string} dataDir    the server's data directory
 * @property {() => number} random   seeded, uniform in [0, 1)
 * @property {() => void} began       called by start as it does what disturbs (after its own set-up): the true start
 *
 * @typedef {object} IncidentKind
 * @property {string} name
 * @property {string} what        the scenario in words
 * @property {string[]} truth     the cause kinds that are right as the first cause
 * @property {string} profile
 * @property {(context: Omit<IncidentContext, 'began'>) => Promise<void>} [prepare]   before each case's load starts
 * @property {(context: IncidentContext) => Promise<() => Promise<void>>} start
 */

/** @param {string} url @param {string} name */
async function client(url, name) {
  const c = new pg.Client({ connectionString: url, application_name: name })
  await c.connect()
  return c
}

// rows of (bigint, 100 characters) in a MB of heap: 8 kB pages of about 57 rows
const FREEZE_ROWS_PER_MB = 7000

/** @type {IncidentKind[]} */
export const INCIDENT_KINDS = [
  {
    name: 'lock',
    what: "ACCESS EXCLUSIVE lock on the load's table",
    truth: ['lock_wait'],
    profile: 'lab',
    async start({ url, began }) {
      const c = await client(url, 'lock-holder')
      await c.query('BEGIN')
      // the load's requests queue behind the lock from the moment it is asked for
      began()
      await c.query('LOCK TABLE test_table IN ACCESS EXCLUSIVE MODE')
      return async () => {
        await c.query('COMMIT')
        await c.end()
      }
    }
  },
  {
    name: 'cpu',
    what: 'busy-loop processes take the CPU',
    truth: ['cpu_contention'],
    profile: 'lab',
    async start({ random, began }) {
      began()
      const children = spinners(random)
      return async () => killAll(children)
    }
  },
  cpuFreed(),
  {
    name: 'pause',
    what: "the server's processes stopped (SIGSTOP, then SIGCONT)",
    truth: ['server_stopped'],
    profile: 'lab',
    async start({ dataDir }) {
      const pids = serverPids(dataDir)
      for (const pid of pids) signal(pid, 'SIGSTOP')
      return async () => {
        for (const pid of pids) signal(pid, 'SIGCONT')
      }
    }
  },
  {
    name: 'reconnects',
    what: "the load's sessions terminated twice a second (pg_terminate_backend)",
    truth: ['reconnects', 'failures'],
    profile: 'lab',
    async start({ url, began }) {
      const c = await client(url, 'terminator')
      const kill = () =>
        c
          .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pgloadgen' " +
              "AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
          )
          .catch(() => {})
      began()
      await kill()
      const timer = setInterval(kill, 500)
      return async () => {
        clearInterval(timer)
        await c.end()
      }
    }
  },
  {
    name: 'snapshot',
    what: 'a REPEATABLE READ snapshot held by an idle session',
    truth: ['xmin_holder'],
    profile: 'lab',
    async start({ url, began }) {
      const c = await client(url, 'report')
      began()
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ')
      await c.query('SELECT count(*) FROM test_table WHERE id < 100')
      return async () => {
        await c.query('COMMIT')
        await c.end()
      }
    }
  },
  {
    name: 'prepared',
    what: 'a prepared transaction left open',
    truth: ['xmin_holder'],
    profile: 'lab',
    async start({ url, began }) {
      const c = await client(url, 'preparer')
      const name = `known-answer-${process.pid}-${Date.now()}`
      began()
      await c.query('BEGIN')
      await c.query('SELECT pg_current_xact_id()')
      await c.query(`PREPARE TRANSACTION '${name}'`)
      return async () => {
        await c.query(`COMMIT PREPARED '${name}'`)
        await c.end()
      }
    }
  },
  {
    name: 'checkpoint',
    what: 'checkpoints one after another on the io-bound profile (a throttled disk)',
    truth: ['checkpoint'],
    profile: 'io-bound',
    // CHECKPOINT as soon as the last one ended: the load's dirty pages are
    // written through the throttled disk again and again, and each page's
    // first change after a checkpoint puts the whole page in the WAL
    async start({ url, began }) {
      const c = await client(url, 'checkpointer')
      let stopping = false
      began()
      const loop = (async () => {
        while (!stopping) await c.query('CHECKPOINT').catch(() => {})
      })()
      return async () => {
        stopping = true
        await loop
        await c.end()
      }
    }
  },
  {
    name: 'freeze',
    what: 'a manual VACUUM FREEZE of a large table on the io-bound profile',
    truth: ['vacuum'],
    profile: 'io-bound',
    // a table of a seeded 60 to 120 MB beside the load's, filled and
    // checkpointed before the load starts, none of it frozen: the FREEZE
    // reads and rewrites every page through the io-bound profile's small
    // shared buffers and direct I/O, for several seconds (on the load's own
    // table of a few MB it ends within a second or two)
    async prepare({ url, random }) {
      const rows = Math.round((60 + random() * 60) * FREEZE_ROWS_PER_MB)
      const c = await client(url, 'freeze-prepare')
      try {
        await c.query('DROP TABLE IF EXISTS freeze_target')
        await c.query('CREATE TABLE freeze_target (id bigint, pad text) WITH (autovacuum_enabled = off)')
        await c.query(`INSERT INTO freeze_target SELECT g, repeat('x', 100) FROM generate_series(1, ${rows}) g`)
        await c.query('CHECKPOINT')
      } finally {
        await c.end()
      }
    },
    async start({ url, began }) {
      const c = await client(url, 'freezer')
      began()
      const done = c.query('VACUUM (FREEZE, DISABLE_PAGE_SKIPPING) freeze_target').catch(() => {})
      return async () => {
        await done
        await c.end()
      }
    }
  }
]

/**
 * The postmaster (first line of postmaster.pid) and its children.
 * @param {string} dataDir
 */
export function serverPids(dataDir) {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
  const pids = [postmaster]
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === postmaster) pids.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

/** @param {number} pid @param {NodeJS.Signals} name */
function signal(pid, name) {
  try {
    process.kill(pid, name)
  } catch {
    // gone meanwhile
  }
}

// the longest a case's spinners may live, should its run fail before the incident ends them
const SPINNER_MOST_MS = 300000

/**
 * 6 to 12 busy-loop processes (a share of a loaded machine, whose run
 * queue is already long); each ends by itself at the latest after
 * SPINNER_MOST_MS, so that nothing is left spinning if a case fails first.
 * @param {() => number} random
 */
function spinners(random) {
  const n = 6 + Math.floor(random() * 7)
  const code = `const end = Date.now() + ${SPINNER_MOST_MS}; while (Date.now() < end) {}`
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', code], { stdio: 'ignore' }))
}

/** @param {import('node:child_process').ChildProcess[]} children */
function killAll(children) {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
}

/**
 * The machine's CPU freed: busy-loop processes that were already running
 * when the load began end at the incident's moment. What changes is the
 * load's CPU coming back, with no newcomer to name: the lab must see the
 * others' CPU fall and its own rise.
 * @returns {IncidentKind}
 */
function cpuFreed() {
  /** @type {import('node:child_process').ChildProcess[]} */
  let children = []
  return {
    name: 'cpu-freed',
    what: 'busy-loop processes running since before the load end',
    truth: ['cpu_contention'],
    profile: 'lab',
    async prepare({ random }) {
      children = spinners(random)
    },
    async start({ began }) {
      began()
      killAll(children)
      children = []
      return async () => {}
    }
  }
}
