import { runAction } from '../../sidecar/actions.js'
import { EventLog } from '../../sidecar/events.js'
import { parseInteger } from '../../config/numbers.js'
import { chooseUrl, openTarget } from '../target.js'
import { withTarget, DEFAULT_EVENTS_FILE } from '../target-options.js'

/**
 * @typedef {(args: any, io: { log: import('../../log.js').Logger, stdout: { write: (s: string) => unknown }, argv?: readonly string[] }) => Promise<number>} CommandRun
 * @typedef {{ command: string, describe: string, builder: (y: import('yargs').Argv) => import('yargs').Argv, run: CommandRun }} CommandModule
 */

/**
 * Runs one action against a URL or the lab's server and exits 0 when it
 * succeeded, 1 when it failed; --json prints its outcome.
 * @param {import('../../sidecar/actions.js').ActionSpec} spec
 * @returns {CommandRun}
 */
const runOne = (spec) => async (args, { log, stdout }) => {
  const url = chooseUrl(args.pgUrl)
  const pgPort = parseInteger(args.pgPort, '--pg-port', { min: 0, max: 65535 })
  const events = new EventLog({ file: args.events, log })
  const target = await openTarget({ url, dataDir: args.dataDir, profile: args.profile, pgPort, log })
  try {
    const outcome = await runAction(spec, { connectionString: target.connectionString, events, log })
    await events.flush()
    if (args.json) stdout.write(JSON.stringify({ action: spec.action, ...(spec.table && { table: spec.table }), ...outcome }) + '\n')
    return outcome.ok ? 0 : 1
  } finally {
    await target.embedded?.stop()
  }
}

/** @param {import('yargs').Argv} y */
const common = (y) => withTarget(y)
  .option('events', { type: 'string', default: DEFAULT_EVENTS_FILE, describe: 'file the start and end events are appended to (NDJSON)' })
  .option('json', { type: 'boolean', default: false, describe: 'print the outcome as JSON on stdout' })

/** @type {CommandModule[]} */
export const actionCommands = [
  {
    command: 'vacuum [pgUrl]',
    describe: 'run VACUUM on a table, follow its progress, record start and end',
    builder: (y) => common(y)
      .option('table', { type: 'string', demandOption: 'give the table to vacuum with --table', describe: 'table (or schema.table)' })
      .option('freeze', { type: 'boolean', default: false, describe: 'VACUUM (FREEZE): freeze every tuple, like an anti-wraparound vacuum' })
      .option('full', { type: 'boolean', default: false, describe: 'VACUUM (FULL): rewrite the table (takes an exclusive lock)' })
      .option('analyze', { type: 'boolean', default: false, describe: 'also ANALYZE' })
      .option('verbose', { type: 'boolean', default: false, describe: 'VERBOSE (the server log gets the details)' }),
    run: (args, io) => runOne({ action: 'vacuum', table: args.table, freeze: args.freeze, full: args.full, analyze: args.analyze, verbose: args.verbose })(args, io)
  },
  {
    command: 'analyze [pgUrl]',
    describe: 'run ANALYZE on a table (or the whole database)',
    builder: (y) => common(y).option('table', { type: 'string', describe: 'table (or schema.table); default every table' }),
    run: (args, io) => runOne({ action: 'analyze', ...(args.table && { table: args.table }) })(args, io)
  },
  {
    command: 'checkpoint [pgUrl]',
    describe: 'run CHECKPOINT',
    builder: common,
    run: (args, io) => runOne({ action: 'checkpoint' })(args, io)
  },
  {
    command: 'reset-stats [pgUrl]',
    describe: "reset the database's statistics counters (pg_stat_reset)",
    builder: common,
    run: (args, io) => runOne({ action: 'reset-stats' })(args, io)
  }
]
