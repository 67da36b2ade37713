import { prepareSchema, readMaxId } from '../workloads/schema.js'
import { connectWithin } from '../pg/connection.js'
import { codedServerError } from '../pg/server-errors.js'
import { errorMessage } from '../helpers/error-message.js'
import { PgloadgenError } from '../errors.js'

// What a load session does on its setup connection before it exists: the
// workload's schema made ready, and what the session starts from read off
// the server. The server's settings go into run.json: only a recorded run
// (--record) reads them, and only it loads the recorder's module to do so.

/** @typedef {Readonly<import('./run-spec.js').RunSpec>} RunSpec */

/**
 * Connects, prepares the schema, runs the workload's setup, and reads the
 * max id, the server's version and settings and the audited table's rows.
 * @param {RunSpec} spec
 * @param {import('./session-place.js').SessionPlace} place
 */
export async function prepareTarget(spec, { target, log }) {
  const { workload } = spec
  const { connectionString, display } = target
  let setup
  try {
    setup = await connectWithin({ connectionString, applicationName: 'pgloadgen-setup' }, spec.connectTimeoutS * 1000)
  } catch (err) {
    throw codedServerError(`cannot connect to ${display}: ${errorMessage(err)}`, err, 'PGLG_SERVER_UNAVAILABLE')
  }
  let maxId, serverVersion, settings, shared, rowsBefore
  try {
    try {
      if (spec.reset && workload.dropSql !== null) {
        log.warn(`--reset: dropping and recreating the ${workload.name} tables`, 'PGLG_W_RESET')
      }
      await prepareSchema(setup, workload, { reset: spec.reset })
      maxId = workload.idTable === null ? 0 : await readMaxId(setup, workload.idTable)
      serverVersion = (await setup.query('SHOW server_version')).rows[0].server_version
      settings = spec.recordDir ? await (await import('../recorder/run-info.js')).readSettings(setup) : {}
    } catch (err) {
      const message = `cannot prepare the ${workload.name} schema on ${display}: ` + errorMessage(err)
      throw codedServerError(message, err, 'PGLG_SCHEMA_FAILED')
    }
    shared = await workloadSetup(setup, { workload, display, concurrency: spec.concurrency, log })
    rowsBefore =
      workload.auditTable === null
        ? null
        : Number((await setup.query(`SELECT count(*) AS n FROM ${workload.auditTable}`)).rows[0].n)
  } finally {
    await setup.end().catch(() => {})
  }
  return { maxId, serverVersion, settings, shared, rowsBefore }
}

/**
 * The workload's own setup, on the setup connection: what it returns is
 * every client's ctx.shared. Its failure ends the run with one line.
 * @param {import('pg').Client} client
 * @param {{ workload: RunSpec['workload'], display: string, concurrency: number,
 *     log: import('../log.js').Logger }} load
 */
async function workloadSetup(client, { workload, display, concurrency, log }) {
  try {
    return await workload.setup({
      sql: async (text, params) => (await client.query(text, params)).rows,
      defines: workload.defines,
      config: workload.config,
      concurrency,
      log
    })
  } catch (err) {
    // the workload's own verdict (a refused setting, say) is already worded for the user
    if (err instanceof PgloadgenError) throw err
    const message = `the ${workload.name} workload's setup failed on ${display}: ` + errorMessage(err)
    throw codedServerError(message, err, 'PGLG_SCHEMA_FAILED')
  }
}
