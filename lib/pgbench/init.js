// `pgbench -i` without pgbench: creates and fills pgbench's four tables
// exactly as pgbench does, step by step (-I), so that pgbench's scripts and
// pgbench itself can run against the result.

import { performance } from 'node:perf_hooks'
import { ServerUnavailableError } from '../errors.js'
import { closeControlClient, openControlClient } from '../pg/control-client.js'
import { WireConnection } from '../wire/wire-connection.js'
import { InitError } from './init-options.js'
import {
  ACCOUNTS_PER_BRANCH,
  COPY_TABLES,
  DROP_TABLES,
  FOREIGN_KEYS,
  TELLERS_PER_BRANCH,
  TRUNCATE_TABLES,
  VACUUM,
  copyRows,
  copyStatement,
  createTables,
  primaryKeys,
  serverSideInserts
} from './init-sql.js'

export { DEFAULT_INIT_STEPS, InitError, InitOptionError, parseInitOptions } from './init-options.js'

/** pgbench's name of each step, in its timing summary. */
const STEP_NAMES = /** @type {const} */ ({
  d: 'drop tables',
  t: 'create tables',
  g: 'client-side generate',
  G: 'server-side generate',
  v: 'vacuum',
  p: 'primary keys',
  f: 'foreign keys'
})

// Quiet progress (-q): at most one line per this many seconds.
const QUIET_INTERVAL_S = 5
// Default progress: one line each time this many more rows have been sent.
const PROGRESS_ROWS = 100000

/**
 * @typedef {object} InitResult
 * @property {Array<{ step: string, name: string, seconds: number }>} steps  in the order run; step is the letter
 * @property {{ branches: number, tellers: number, accounts: number, history: number }} rows
 *   rows loaded by this run's generate step (all 0 when none ran; history is always emptied)
 */

/**
 * @typedef {object} StepContext
 * @property {import('pg').Client} client
 * @property {string} connectionString
 * @property {import('./init-options.js').InitOptions} options
 * @property {number} serverVersion
 * @property {import('../log.js').Logger} log
 * @property {InitResult['rows']} rows
 */

/**
 * Runs the initialisation steps of options.initSteps in order on one
 * connection (client-side generation streams on a second, wire-protocol one).
 * @param {string} connectionString
 * @param {import('./init-options.js').InitOptions} options  from parseInitOptions
 * @param {{ log: import('../log.js').Logger }} io
 * @returns {Promise<InitResult>}
 */
export async function initPgbench(connectionString, options, { log }) {
  const client = await connect(connectionString)
  // "table … does not exist, skipping" and the like: worth a debug line only.
  client.on('notice', notice => log.debug(`server notice: ${notice.message}`))
  try {
    const serverVersion = await client.query('show server_version_num').then(
      result => Number(result.rows[0].server_version_num),
      err => {
        throw stepFailed('reading the server version', err)
      }
    )
    /** @type {StepContext} */
    const context = {
      client,
      connectionString,
      options,
      serverVersion,
      log,
      rows: { branches: 0, tellers: 0, accounts: 0, history: 0 }
    }
    /** @type {InitResult['steps']} */
    const steps = []
    for (const step of options.initSteps) {
      if (!Object.hasOwn(STEP_NAMES, step)) continue
      const name = STEP_NAMES[/** @type {keyof typeof STEP_NAMES} */ (step)]
      const started = performance.now()
      try {
        await STEPS[/** @type {keyof typeof STEP_NAMES} */ (step)](context)
      } catch (err) {
        throw stepFailed(name, err)
      }
      steps.push({ step, name, seconds: (performance.now() - started) / 1000 })
    }
    const total = steps.reduce((sum, s) => sum + s.seconds, 0)
    log.info(`done in ${total.toFixed(2)} s (${steps.map(s => `${s.name} ${s.seconds.toFixed(2)} s`).join(', ')}).`)
    return { steps, rows: context.rows }
  } finally {
    await closeControlClient(client)
  }
}

/** @type {Record<keyof typeof STEP_NAMES, (context: StepContext) => Promise<void>>} */
const STEPS = {
  async d({ client, log }) {
    log.info('dropping old tables...')
    await client.query(DROP_TABLES)
  },
  async t({ client, options, serverVersion, log }) {
    log.info('creating tables...')
    const statements = createTables(options, serverVersion)
    for (let i = 0; i < statements.length; i++) {
      if (i === 4) log.info(`creating ${options.partitions} partitions...`)
      await client.query(statements[i])
    }
  },
  g: generateClientSide,
  async G({ client, options, log, rows }) {
    log.info('generating data (server-side)...')
    // One transaction, the truncate included, lets the server skip WAL for
    // the new data when wal_level is minimal.
    await client.query('begin')
    try {
      await client.query(TRUNCATE_TABLES)
      const counts = []
      for (const sql of serverSideInserts(options.scale)) counts.push((await client.query(sql)).rowCount ?? 0)
      await client.query('commit')
      Object.assign(rows, { branches: counts[0], tellers: counts[1], accounts: counts[2], history: 0 })
    } catch (err) {
      await client.query('rollback').catch(() => {})
      throw err
    }
  },
  async v({ client, log }) {
    log.info('vacuuming...')
    for (const sql of VACUUM) await client.query(sql)
  },
  async p({ client, options, log }) {
    log.info('creating primary keys...')
    for (const sql of primaryKeys(options)) await client.query(sql)
  },
  async f({ client, log }) {
    log.info('creating foreign keys...')
    for (const sql of FOREIGN_KEYS) await client.query(sql)
  }
}

/**
 * Step g: the rows are made here and streamed with COPY, branches, tellers
 * then accounts (foreign keys may exist already), in one transaction with
 * the truncate so that COPY can freeze the rows it writes.
 * @param {StepContext} context
 */
async function generateClientSide({ client, connectionString, options, serverVersion, log, rows }) {
  log.info('generating data (client-side)...')
  const kinds = await client.query(
    'select t.name, c.relkind from unnest($1::text[]) as t(name) left join pg_catalog.pg_class c on c.oid = to_regclass(t.name)',
    [COPY_TABLES.map(spec => spec.table)]
  )
  /** @type {Map<string, string | null>} */
  const relkind = new Map(kinds.rows.map(row => [row.name, row.relkind]))
  const wire = await WireConnection.connect(connectionString, { applicationName: 'pgloadgen-init' })
  try {
    await wire.simpleQuery(`begin; ${TRUNCATE_TABLES}`)
    /** @type {number[]} */
    const counts = []
    for (const spec of COPY_TABLES) {
      const freeze = serverVersion >= 140000 && relkind.get(spec.table) === 'r'
      const progress = progressReporter(spec.table, spec.perBranch * options.scale, options.quiet, log)
      const result = await wire.copyFrom(
        copyStatement(spec.table, freeze),
        copyRows(spec, options.scale, { onChunk: progress })
      )
      counts.push(result.rowCount)
    }
    await wire.simpleQuery('commit')
    Object.assign(rows, { branches: counts[0], tellers: counts[1], accounts: counts[2], history: 0 })
  } finally {
    // Closing in the middle of the transaction rolls it back.
    await wire.close().catch(() => {})
  }
}

/**
 * Progress of one table's COPY as pgbench words it: a line each 100000 rows,
 * or with quiet at most one per 5 s and one at the end.
 * @param {string} table
 * @param {number} total
 * @param {boolean} quiet
 * @param {import('../log.js').Logger} log
 * @returns {(sent: number) => void}
 */
function progressReporter(table, total, quiet, log) {
  const started = performance.now()
  let reportedBlocks = 0
  let nextReportS = QUIET_INTERVAL_S
  return sent => {
    const elapsed = (performance.now() - started) / 1000
    if (quiet) {
      if (sent < total && elapsed < nextReportS) return
      nextReportS = (Math.floor(elapsed / QUIET_INTERVAL_S) + 1) * QUIET_INTERVAL_S
    } else {
      const blocks = Math.floor(sent / PROGRESS_ROWS)
      if (blocks === reportedBlocks) return
      reportedBlocks = blocks
    }
    const remaining = ((total - sent) * elapsed) / sent
    log.info(
      `${sent} of ${total} tuples (${Math.floor((sent * 100) / total)}%) of ${table} done (elapsed ${elapsed.toFixed(2)} s, remaining ${remaining.toFixed(2)} s)`
    )
  }
}

/**
 * @param {string} connectionString
 * @returns {Promise<import('pg').Client>}
 */
async function connect(connectionString) {
  try {
    return await openControlClient({ connectionString, applicationName: 'pgloadgen-init' })
  } catch (err) {
    // the driver's own words, as pgbench -i gives them
    const driverError = err instanceof ServerUnavailableError ? err.cause : err
    throw new InitError(`could not connect for initialization: ${oneLine(driverError)}`, { cause: err })
  }
}

/**
 * @param {string} name
 * @param {unknown} err
 */
function stepFailed(name, err) {
  const code =
    typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined
  return new InitError(`${name} failed: ${oneLine(err)}`, { cause: err, code })
}

/** @param {unknown} err */
function oneLine(err) {
  const message = err instanceof Error ? err.message : String(err)
  return message.replace(/\s*\n\s*/g, ' ')
}

// Rows per branch, for callers that size or check a load.
export { ACCOUNTS_PER_BRANCH, TELLERS_PER_BRANCH }
