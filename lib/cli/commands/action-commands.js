import { parseInteger } from '../../config/number-flags.js'
import { InputError, RefusedActionError, rephrased } from '../../errors.js'
import { parseOffset } from '../../helpers/durations.js'
import { checkRetentionSpec, DEFAULT_BATCH, MAX_BATCH } from '../../sidecar/retention-spec.js'
import { quoteTable } from '../../helpers/table-name.js'
import { chooseTarget, openTarget } from '../target.js'
import { withTarget, DEFAULT_EVENTS_FILE } from '../target-options.js'

/**
 * @typedef {(args: any, io: { log: import('../../log.js').Logger, stdout: { write: (s: string) => unknown },
 *     argv?: readonly string[] }) => Promise<number>} CommandRun
 * @typedef {{ command: string, describe: string, builder: (y: import('yargs').Argv) => import('yargs').Argv,
 *     run: CommandRun }} CommandModule
 */

/**
 * Runs one action against a URL or the lab's server and exits 0 when it
 * succeeded, 1 when it failed; --json prints its outcome.
 * @param {import('../../sidecar/actions.js').ActionSpec} spec
 * @returns {CommandRun}
 */
const runOne =
  spec =>
  async (args, { log, stdout }) => {
    const { url, server } = await chooseTarget(args)
    const pgPort = parseInteger(args.pgPort, '--pg-port', { min: 0, max: 65535 })
    // the actions and their client load once the input is known to be good
    const [{ runAction }, { EventLog }] = await Promise.all([
      import('../../sidecar/actions.js'),
      import('../../recorder/event-log.js')
    ])
    const events = new EventLog({ file: args.events, log })
    const target = await openTarget({ url, server, pgPort, log })
    try {
      // a server whose files are not here (exit 2), or no vmtouch (exit 1): refused before any event
      if (spec.action === 'evict-cache') {
        await (await import('../../sidecar/evict-cache.js')).checkEvictable(target.connectionString)
      }
      const outcome = await runAction(spec, { connectionString: target.connectionString, events, log })
      await events.flush()
      if (args.json) {
        stdout.write(
          JSON.stringify({ action: spec.action, ...(spec.table && { table: spec.table }), ...outcome }) + '\n'
        )
      }
      return outcome.ok ? 0 : 1
    } finally {
      await target.embedded?.stop()
    }
  }

/**
 * A retention command: refused without --yes, and its flags checked, before
 * anything is started or touched.
 * @param {'drop-partitions' | 'delete'} action
 * @returns {CommandRun}
 */
const retention = action => (args, io) => {
  if (args.yes !== true) {
    throw new RefusedActionError(
      `${action} ${action === 'delete' ? 'deletes rows' : 'drops partitions'} of ${args.table}: give --yes to let it`
    )
  }
  if (args.olderThan === undefined || args.olderThan === '') {
    throw new InputError(`${action} needs --older-than, a duration (like 10m)`, { code: 'PGLG_MISSING_VALUE' })
  }
  const olderThanS = parseOffset(args.olderThan, '--older-than')
  if (!(olderThanS > 0)) throw new InputError('--older-than must be more than 0', { code: 'PGLG_INVALID_NUMBER' })
  const relativeTo = args.relativeTo ?? 'data'
  if (relativeTo !== 'data' && relativeTo !== 'clock') {
    throw new InputError(`--relative-to must be data or clock, got "${relativeTo}"`, { code: 'PGLG_INVALID_CHOICE' })
  }
  /** @type {import('../../sidecar/actions.js').ActionSpec} */
  const spec = { action, table: args.table, older_than: olderThanS, relative_to: relativeTo, yes: true }
  if (action === 'delete') {
    spec.batch = parseInteger(args.batch, '--batch', { min: 1, max: MAX_BATCH })
    spec.time_column = args.timeColumn
  }
  try {
    checkRetentionSpec(spec, '')
  } catch (err) {
    // the table's name, or the time column's
    const message = /** @type {Error} */ (err).message
      .replace(/^table: /, '')
      .replace(/^time_column: /, '--time-column: ')
    throw err instanceof InputError ? rephrased(err, message) : new InputError(message, { cause: err })
  }
  return runOne(spec)(args, io)
}

/** @param {import('yargs').Argv} y */
const retentionFlags = y =>
  common(y)
    .positional('table', { type: 'string', describe: 'the table (or schema.table)' })
    .option('older-than', {
      type: 'string',
      describe: 'what to remove: older than the newest time in the table (or now) minus this (10m, 1h30m, 600)'
    })
    .option('relative-to', {
      type: 'string',
      default: 'data',
      describe: 'data: the newest time in the table (simulated time runs in the past); clock: now'
    })
    .option('yes', { type: 'boolean', default: false, describe: 'this removes data: required' })

/** @param {import('yargs').Argv} y */
const common = y =>
  withTarget(y)
    .option('events', {
      type: 'string',
      default: DEFAULT_EVENTS_FILE,
      describe: 'file the start and end events are appended to (NDJSON)'
    })
    .option('json', { type: 'boolean', default: false, describe: 'print the outcome as JSON on stdout' })

/** @type {CommandModule[]} */
export const actionCommands = [
  {
    command: 'vacuum [pgUrl]',
    describe: 'run VACUUM on a table, follow its progress, record start and end',
    builder: y =>
      common(y)
        .option('table', {
          type: 'string',
          demandOption: 'give the table to vacuum with --table',
          describe: 'table (or schema.table)'
        })
        .option('freeze', {
          type: 'boolean',
          default: false,
          describe: 'VACUUM (FREEZE): freeze every tuple, like an anti-wraparound vacuum'
        })
        .option('full', {
          type: 'boolean',
          default: false,
          describe: 'VACUUM (FULL): rewrite the table (takes an exclusive lock)'
        })
        .option('analyze', { type: 'boolean', default: false, describe: 'also ANALYZE' })
        .option('verbose', { type: 'boolean', default: false, describe: 'VERBOSE (the server log gets the details)' })
        .option('cost-delay', {
          type: 'string',
          describe:
            "throttle it as autovacuum is: its vacuum_cost_delay, 0 to 100 ms (20ms: PostgreSQL 9.6's autovacuum)"
        }),
    run: async (args, io) => {
      /** @type {import('../../sidecar/actions.js').ActionSpec} */
      const spec = {
        action: 'vacuum',
        table: args.table,
        freeze: args.freeze,
        full: args.full,
        analyze: args.analyze,
        verbose: args.verbose
      }
      if (args.costDelay !== undefined) {
        spec.cost_delay = (await import('../../sidecar/actions.js')).costDelayMs(args.costDelay, '--cost-delay')
      }
      return runOne(spec)(args, io)
    }
  },
  {
    command: 'analyze [pgUrl]',
    describe: 'run ANALYZE on a table (or the whole database)',
    builder: y =>
      common(y).option('table', { type: 'string', describe: 'table (or schema.table); default every table' }),
    run: (args, io) => runOne({ action: 'analyze', ...(args.table && { table: args.table }) })(args, io)
  },
  {
    command: 'drop-partitions <table> [pgUrl]',
    describe:
      'retention by DROP: drop the partitions of a table whose upper bound is older than --older-than (needs --yes)',
    builder: retentionFlags,
    run: retention('drop-partitions')
  },
  {
    command: 'delete <table> [pgUrl]',
    describe:
      'retention by DELETE: delete the rows older than --older-than, in batches of their own transaction (needs --yes)',
    builder: y =>
      retentionFlags(y)
        .option('batch', {
          type: 'string',
          default: String(DEFAULT_BATCH),
          describe: 'rows per DELETE (each its own transaction)'
        })
        .option('time-column', { type: 'string', default: 'time', describe: 'the time column' }),
    run: retention('delete')
  },
  {
    command: 'checkpoint [pgUrl]',
    describe: 'run CHECKPOINT',
    builder: common,
    run: (args, io) => runOne({ action: 'checkpoint' })(args, io)
  },
  {
    command: 'evict-cache [pgUrl]',
    describe:
      "drop a table's files (indexes, TOAST, partitions too) from the kernel's page cache, so the next action reads them from disk (a local server; needs vmtouch)",
    builder: y =>
      common(y).option('table', {
        type: 'string',
        demandOption: 'give the table to evict with --table',
        describe: 'table (or schema.table)'
      }),
    run: (args, io) => {
      quoteTable(args.table) // a bad name is bad input, refused before anything starts
      return runOne({ action: 'evict-cache', table: args.table })(args, io)
    }
  },
  {
    command: 'age-xids [pgUrl]',
    describe:
      'spend transaction IDs quickly (SQL only) to age the database, as weeks of traffic would; prints its rate in XIDs/s',
    builder: y =>
      common(y)
        .option('by', { type: 'string', describe: 'transaction IDs to spend: 2000000, 2M, 500k' })
        .option('to-age', {
          type: 'string',
          describe: 'or: spend until the database (or --table) is this many transactions old'
        })
        .option('table', {
          type: 'string',
          describe: 'with --to-age: the table whose age (of its relfrozenxid) it means'
        })
        .option('rate', { type: 'string', describe: 'at most this many a second (default: as fast as it goes)' })
        .option('parallel', { type: 'string', default: '2', describe: 'worker connections' })
        .option('hold-lock', {
          type: 'string',
          describe:
            "hold this table's SHARE UPDATE EXCLUSIVE lock meanwhile: its anti-wraparound autovacuum waits, and starts past the failsafe age"
        }),
    run: ageXidsCommand
  },
  {
    command: 'reset-stats [pgUrl]',
    describe: "reset the database's statistics counters (pg_stat_reset)",
    builder: common,
    run: (args, io) => runOne({ action: 'reset-stats' })(args, io)
  }
]

/**
 * age-xids: its flags checked, then the role's rights (a refusal exits 2
 * before any xid is spent); prints the rate and the database's age.
 * @type {CommandRun}
 */
async function ageXidsCommand(args, { log, stdout }) {
  const { ageXidsOptions, runAgeXids } = await import('../../sidecar/age-xids-action.js')
  /** @type {import('../../sidecar/actions.js').ActionSpec} */
  const spec = {
    action: 'age-xids',
    ...(args.by !== undefined && { by: args.by }),
    ...(args.toAge !== undefined && { to_age: args.toAge }),
    ...(args.table !== undefined && { table: args.table }),
    ...(args.rate !== undefined && { rate: args.rate }),
    parallel: args.parallel,
    ...(args.holdLock !== undefined && { hold_lock: args.holdLock })
  }
  ageXidsOptions(spec, '')
  const { url, server } = await chooseTarget(args)
  const pgPort = parseInteger(args.pgPort, '--pg-port', { min: 0, max: 65535 })
  const { EventLog } = await import('../../recorder/event-log.js')
  const events = new EventLog({ file: args.events, log })
  const target = await openTarget({ url, server, pgPort, log })
  try {
    const outcome = await runAgeXids(spec, { connectionString: target.connectionString, events, log })
    await events.flush()
    const result = /** @type {import('../../lab/age-xids.js').AgeXidsResult | undefined} */ (outcome.detail)
    if (args.json) stdout.write(JSON.stringify({ action: 'age-xids', ...outcome }) + '\n')
    else if (result)
      stdout.write(
        `age-xids: ${result.consumed} transaction IDs in ${result.seconds.toFixed(2)} s: ${result.xids_per_s} XIDs/s (${result.parallel} connections); database ${result.database} age ${result.age_before} -> ${result.age_after}\n`
      )
    return outcome.ok ? 0 : 1
  } finally {
    await target.embedded?.stop()
  }
}
