import { performance } from 'node:perf_hooks'
import { InputError } from '../errors.js'
import { quote } from '../helpers/quote.js'
import { quoteTable } from '../helpers/table-name.js'
import { closeControlClient, openControlClient } from '../pg/control-client.js'

// age-xids: spends transaction IDs quickly with SQL alone, so that a lab
// server goes through weeks of anti-wraparound cycles in minutes (the
// embedded binaries have no pg_resetwal, and no xid_wraparound module).
//
// Each worker connection sends DO blocks whose loop assigns an xid
// (pg_current_xact_id(), txid_current() before PostgreSQL 13) and commits
// it, once per iteration: a DO block run outside a transaction block may
// COMMIT (PostgreSQL 11+), so nothing is created, nothing needs cleaning
// up, and no schema of the user's is touched. Every xid is committed at
// once, so none holds back the xmin horizon (a subtransaction burst inside
// one long transaction would), and a chunk of a few thousand per round
// trip makes the client's share negligible. Measured choices: docs/age-xids.md.
//
// Optionally it holds a table's SHARE UPDATE EXCLUSIVE lock (the lock
// VACUUM takes, as a long ANALYZE or CREATE INDEX CONCURRENTLY would) from
// before the first xid to after the last: the table's anti-wraparound
// autovacuum waits, and starts with the table's age past the failsafe.

// Xids per DO block at full speed: about a tenth of a second of one backend.
const FULL_CHUNK = 10000
// A server whose oldest database would pass this age is refused: it is
// below the failsafe's default (1.6 billion) and far from the shutdown
// near 2^31, whatever else runs there.
export const MAX_AGE_AFTER = 1_500_000_000
export const MAX_BY = 1_000_000_000
export const MAX_PARALLEL = 16

/**
 * @typedef {object} AgeXidsOptions
 * @property {number} [by]               xids to spend
 * @property {number} [toAge]            or: spend until this age (of `table`, else of the database)
 * @property {string | null} [table]     whose age toAge means
 * @property {number | null} [rate]      xids a second at most; null: as fast as it goes
 * @property {number} [parallel]         worker connections (default 2)
 * @property {string | null} [holdLock]  a table whose SHARE UPDATE EXCLUSIVE lock is held meanwhile
 * @property {(pid: number) => void} [onBackend]
 * @property {(done: number, seconds: number) => void} [onProgress]   every few seconds
 */

/**
 * @typedef {object} AgeXidsResult
 * @property {number} consumed            xids this command assigned
 * @property {number} seconds
 * @property {number} xids_per_s
 * @property {number} parallel
 * @property {number | null} rate         the pace asked for
 * @property {string} database
 * @property {number} age_before          age(datfrozenxid) of the database
 * @property {number} age_after
 * @property {number} server_xids         how far the server's next xid moved meanwhile (this and every other session)
 * @property {string | null} held_lock
 * @property {number} [to_age]            asked to reach this age
 * @property {string} [of]                the table whose age, or 'database'
 * @property {number | null} [start_age]  its age when it started
 */

/**
 * A count of xids as given: 2000000, 2e6, 2M or 500k.
 * @param {unknown} value
 * @param {string} field
 */
export function parseXidCount(value, field, { min = 1, max = MAX_BY } = {}) {
  const text = String(value ?? '').trim()
  const match = /^(\d+(?:\.\d+)?(?:e\d+)?)\s*([kKmM]?)$/.exec(text)
  const n = match
    ? Number(match[1]) * { '': 1, k: 1e3, m: 1e6 }[/** @type {'' | 'k' | 'm'} */ (match[2].toLowerCase())]
    : NaN
  if (!Number.isInteger(n)) {
    throw new InputError(
      `${field}: expected a whole number of transaction IDs (2000000, 2M, 500k), got ${quote(value, 40)}`,
      { code: 'PGLG_INVALID_NUMBER' }
    )
  }
  if (n < min || n > max) {
    throw new InputError(`${field}: expected ${min} to ${max}, got ${n}`, { code: 'PGLG_INVALID_NUMBER' })
  }
  return n
}

/**
 * What the role needs, checked before anything is spent: a primary (a
 * standby assigns no xids), PL/pgSQL's USAGE (the DO blocks), EXECUTE on the
 * xid function, and UPDATE, DELETE or TRUNCATE on a held table (LOCK TABLE
 * in that mode asks for one of them). Refused with an InputError naming what
 * is missing; also when the server would age past MAX_AGE_AFTER.
 * @param {import('pg').Client} client
 * @param {{ by: number, holdLock?: string | null }} options
 * @returns {Promise<{ xidFunction: string, database: string }>}
 */
export async function checkAgeRights(client, { by, holdLock = null }) {
  const {
    rows: [info]
  } = await client.query(`SELECT current_setting('server_version_num')::int AS version, pg_is_in_recovery() AS standby,
    current_user AS role, current_database() AS database,
    EXISTS (SELECT 1 FROM pg_language WHERE lanname = 'plpgsql') AS has_plpgsql,
    (SELECT max(age(datfrozenxid)) FROM pg_database) AS oldest_age`)
  const xidFunction = info.version >= 130000 ? 'pg_current_xact_id' : 'txid_current'
  const where = `role ${info.role} on database ${info.database}`
  if (info.standby) {
    throw new InputError(`age-xids: the server is a standby (in recovery): it assigns no transaction IDs`, {
      code: 'PGLG_UNFIT_SERVER'
    })
  }
  if (!info.has_plpgsql) {
    throw new InputError(`age-xids: database ${info.database} has no PL/pgSQL, which age-xids runs its loops in`, {
      code: 'PGLG_UNFIT_SERVER'
    })
  }
  const {
    rows: [rights]
  } = await client.query(`SELECT has_language_privilege('plpgsql', 'USAGE') AS plpgsql,
    has_function_privilege('${xidFunction}()', 'EXECUTE') AS xid_function`)
  if (!rights.plpgsql) {
    throw new InputError(
      `age-xids: ${where} lacks USAGE on language plpgsql (GRANT USAGE ON LANGUAGE plpgsql TO ${info.role})`,
      { code: 'PGLG_UNFIT_SERVER' }
    )
  }
  if (!rights.xid_function) {
    throw new InputError(`age-xids: ${where} lacks EXECUTE on ${xidFunction}()`, { code: 'PGLG_UNFIT_SERVER' })
  }
  if (holdLock) {
    const table = quoteTable(holdLock)
    const {
      rows: [lock]
    } = await client.query(
      `SELECT to_regclass($1) AS oid,
      CASE WHEN to_regclass($1) IS NULL THEN false
        ELSE has_table_privilege(to_regclass($1), 'UPDATE, DELETE, TRUNCATE') END AS lockable`,
      [table]
    )
    if (lock.oid === null) {
      throw new InputError(`age-xids: no table ${holdLock} to hold the lock of in database ${info.database}`, {
        code: 'PGLG_UNFIT_SERVER'
      })
    }
    if (!lock.lockable) {
      throw new InputError(`age-xids: ${where} may not lock ${holdLock} (needs UPDATE, DELETE or TRUNCATE on it)`, {
        code: 'PGLG_UNFIT_SERVER'
      })
    }
  }
  if (Number(info.oldest_age) + by > MAX_AGE_AFTER) {
    throw new InputError(
      `age-xids: the server's oldest database is ${info.oldest_age} transactions old; ${by} more would pass ${MAX_AGE_AFTER}, too close to the failsafe and wraparound`,
      { code: 'PGLG_UNFIT_SERVER' }
    )
  }
  return { xidFunction, database: info.database }
}

/**
 * Spends `by` transaction IDs on the server of connectionString.
 * @param {string} connectionString
 * @param {AgeXidsOptions} options
 * @returns {Promise<AgeXidsResult>}
 */
export async function ageXids(
  connectionString,
  { by: asked, toAge, table = null, rate = null, parallel = 2, holdLock = null, onBackend, onProgress }
) {
  const options = { connectionString, applicationName: 'pgloadgen-age-xids' }
  /** @type {import('pg').Client | null} */
  let control = null
  /** @type {import('pg').Client[]} */
  const workers = []
  /** @type {import('pg').Client | null} */
  let locker = null
  try {
    control = await openControlClient(options)
    // with toAge, at most toAge more: the bound the rights check guards
    const { xidFunction, database } = await checkAgeRights(control, { by: asked ?? toAge ?? 0, holdLock })
    if (table && (await control.query('SELECT to_regclass($1) AS oid', [quoteTable(table)])).rows[0].oid === null) {
      throw new InputError(`age-xids: no table ${table} in database ${database}`, { code: 'PGLG_UNFIT_SERVER' })
    }
    const ageBefore = await databaseAge(control)
    const nextBefore = await nextXid(control)
    if (holdLock) {
      locker = await openControlClient({ connectionString, applicationName: 'pgloadgen-age-xids-lock' })
      onBackend?.((await locker.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)
      // LOCK takes no snapshot: the open transaction holds back no horizon
      await locker.query('BEGIN')
      await locker.query(`LOCK TABLE ${quoteTable(holdLock)} IN SHARE UPDATE EXCLUSIVE MODE`)
    }
    // measured once the lock is held: a vacuum it waited for may have made the table young again
    const startAge = toAge === undefined ? null : table ? await tableAge(control, table) : await databaseAge(control)
    const by = startAge === null ? /** @type {number} */ (asked) : Math.max(0, /** @type {number} */ (toAge) - startAge)
    const count = by === 0 ? 0 : Math.max(1, Math.min(parallel, Math.ceil(by / 1000)))
    // every client that connected is kept, to be ended below, even when another failed
    const opened = await Promise.allSettled(Array.from({ length: count }, () => openControlClient(options)))
    for (const outcome of opened) if (outcome.status === 'fulfilled') workers.push(outcome.value)
    for (const outcome of opened) if (outcome.status === 'rejected') throw outcome.reason
    for (const client of workers) onBackend?.((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)
    // paced: chunks of about a fifth of a second of the pace, so that it stays even
    const chunk = rate ? Math.max(50, Math.min(FULL_CHUNK, Math.round(rate / count / 5))) : FULL_CHUNK
    const started = performance.now()
    let issued = 0
    let done = 0
    let reported = started
    await Promise.all(
      workers.map(async client => {
        while (issued < by) {
          const n = Math.min(chunk, by - issued)
          // the moment this chunk is due: the pace's schedule, not the last chunk's end
          const due = rate ? started + (issued / rate) * 1000 : 0
          issued += n
          const wait = due - performance.now()
          if (wait > 0) await new Promise(resolve => setTimeout(resolve, wait))
          await client.query(
            `DO $age_xids$ BEGIN FOR i IN 1..${n} LOOP PERFORM ${xidFunction}(); COMMIT; END LOOP; END $age_xids$`
          )
          done += n
          const now = performance.now()
          if (now - reported >= 5000) {
            reported = now
            onProgress?.(done, (now - started) / 1000)
          }
        }
      })
    )
    const seconds = (performance.now() - started) / 1000
    if (locker) {
      await locker.query('COMMIT')
      await closeControlClient(locker)
      locker = null
    }
    const nextAfter = await nextXid(control)
    return {
      consumed: done,
      seconds: Math.round(seconds * 1000) / 1000,
      xids_per_s: Math.round(done / Math.max(seconds, 1e-3)),
      parallel: count,
      rate,
      database,
      age_before: ageBefore,
      age_after: await databaseAge(control),
      server_xids: nextAfter - nextBefore,
      held_lock: holdLock,
      ...(toAge !== undefined && { to_age: toAge, of: table ?? 'database', start_age: startAge })
    }
  } finally {
    await Promise.all([control, ...workers, locker].map(closeControlClient))
  }
}

/**
 * @param {import('pg').Client} client
 * @param {string} table
 */
async function tableAge(client, table) {
  return Number(
    (
      await client.query('SELECT age(relfrozenxid) AS age FROM pg_class WHERE oid = to_regclass($1)', [
        quoteTable(table)
      ])
    ).rows[0].age
  )
}

/** @param {import('pg').Client} client */
async function databaseAge(client) {
  return Number(
    (await client.query('SELECT age(datfrozenxid) AS age FROM pg_database WHERE datname = current_database()')).rows[0]
      .age
  )
}

/**
 * The server's next xid (a snapshot's xmax), read without assigning one;
 * txid_current_snapshot() is there in every major from 9.6 to 18.
 * @param {import('pg').Client} client
 */
async function nextXid(client) {
  return Number((await client.query('SELECT txid_snapshot_xmax(txid_current_snapshot()) AS xid')).rows[0].xid)
}
