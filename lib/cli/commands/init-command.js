import { InputError, RefusedActionError } from '../../errors.js'
import { parseInteger } from '../../config/number-flags.js'
import { initPgbench, parseInitOptions, InitOptionError, InitError } from '../../pgbench/init.js'
import { chooseTarget, openTarget } from '../target.js'
import { errorMessage } from '../../helpers/error-message.js'
import { closeControlClient, openControlClient } from '../../pg/control-client.js'
import { codedServerError } from '../../pg/server-errors.js'

const PGBENCH_TABLES = ['pgbench_accounts', 'pgbench_branches', 'pgbench_history', 'pgbench_tellers']

/**
 * pgloadgen init: pgbench's four tables, created and filled as pgbench -i
 * does, so that the built-in scripts (and pgbench itself) can run. Tables
 * with rows are dropped only with --yes.
 * @type {import('./action-commands.js').CommandRun}
 */
export async function initCommand(args, { log, stdout }) {
  let options
  try {
    options = parseInitOptions({
      scale: args.scale,
      fillfactor: args.fillfactor,
      initSteps: args.initSteps,
      foreignKeys: args.foreignKeys,
      unlogged: args.unloggedTables,
      partitions: args.partitions,
      partitionMethod: args.partitionMethod,
      tablespace: args.tablespace,
      indexTablespace: args.indexTablespace,
      noVacuum: args.n === true || args.vacuum === false,
      quiet: args.quiet
    })
  } catch (err) {
    if (err instanceof InitOptionError) throw new InputError(err.message, { cause: err })
    throw err
  }
  const { url, server } = await chooseTarget(args)
  const pgPort = parseInteger(args.pgPort, '--pg-port', { min: 0, max: 65535 })
  const target = await openTarget({ url, server, pgPort, log })
  try {
    if (options.initSteps.includes('d') && !args.yes) await refuseToDropRows(target.connectionString, target.display)
    log.info(
      `initialising pgbench's tables at scale ${options.scale} on ${target.display} (steps ${options.initSteps})`
    )
    const result = await initPgbench(target.connectionString, options, { log }).catch(err => {
      if (err instanceof InitError) throw codedServerError(err.message.split('\n')[0], err, 'PGLG_SCHEMA_FAILED')
      throw err
    })
    if (args.json) {
      stdout.write(
        JSON.stringify(
          { scale: options.scale, init_steps: options.initSteps, target: target.display, ...result },
          null,
          2
        ) + '\n'
      )
    }
    return 0
  } finally {
    await target.embedded?.stop()
  }
}

/**
 * The drop step would destroy data: with rows in any of pgbench's tables,
 * it needs --yes.
 * @param {string} connectionString
 * @param {string} display
 */
async function refuseToDropRows(connectionString, display) {
  /** @type {import('pg').Client | null} */
  let client = null
  try {
    client = await openControlClient({ connectionString, applicationName: 'pgloadgen-init' })
    const present = (
      await client.query(
        "SELECT relname FROM pg_class WHERE relname = ANY($1) AND relkind IN ('r', 'p') AND pg_table_is_visible(oid)",
        [PGBENCH_TABLES]
      )
    ).rows.map(row => row.relname)
    const withRows = []
    for (const table of present) {
      if ((await client.query(`SELECT EXISTS (SELECT 1 FROM ${table}) AS any`)).rows[0].any) withRows.push(table)
    }
    if (withRows.length > 0) {
      throw new RefusedActionError(
        `${display} already has pgbench tables with rows (${withRows.join(', ')}); give --yes to drop and recreate them`
      )
    }
  } catch (err) {
    if (err instanceof InputError) throw err
    throw codedServerError(`cannot reach ${display}: ${errorMessage(err)}`, err, 'PGLG_SERVER_UNAVAILABLE')
  } finally {
    await closeControlClient(client)
  }
}
