import { DEFAULT_EVENTS_FILE } from '../target-options.js'

/** @param {import('yargs').Argv} y */
const dataDirOption = y =>
  y
    .option('data-dir', {
      type: 'string',
      default: './.pgloadgen/pgdata',
      describe: 'data directory of the server the lab manages'
    })
    .option('driver', { type: 'string', describe: 'zfs or copy (init sets it; later commands read it)' })
    .option('dataset', { type: 'string', describe: 'ZFS dataset holding the data directory (default: found from it)' })
    .option('events', {
      type: 'string',
      default: DEFAULT_EVENTS_FILE,
      describe: 'file the start and end of create, rollback and destroy are appended to (NDJSON)'
    })

/**
 * @param {any} args
 * @param {import('../../log.js').Logger} log
 */
const open = async (args, log) => {
  const [{ Snapshots }, { EventLog }] = await Promise.all([
    import('../../snapshot/snapshots.js'),
    import('../../recorder/event-log.js')
  ])
  return Snapshots.open({
    dataDir: args.dataDir,
    driver: args.driver,
    dataset: args.dataset,
    events: new EventLog({ file: args.events, log }),
    log
  })
}

/**
 * pgloadgen snapshot init|create|list|rollback|destroy: the subcommands set
 * the action the CLI runs after parsing.
 * @param {import('yargs').Argv} y
 * @param {(run: import('./action-commands.js').CommandRun, args: any) => void} choose
 */
export function snapshotSubcommands(y, choose) {
  return dataDirOption(y)
    .command(
      'init',
      "choose the snapshot driver for a data directory (zfs: marks the dataset as the lab's)",
      s => s,
      args =>
        choose(async (a, { log }) => {
          await (await open(a, log)).init()
          return 0
        }, args)
    )
    .command(
      'create <name>',
      'take a snapshot',
      s => s.positional('name', { type: 'string' }),
      args =>
        choose(async (a, { log }) => {
          await (await open(a, log)).create(a.name)
          return 0
        }, args)
    )
    .command(
      'list',
      'list the snapshots',
      s => s.option('json', { type: 'boolean', default: false }),
      args =>
        choose(async (a, { log, stdout }) => {
          const snapshots = await (await open(a, log)).list()
          if (a.json) stdout.write(JSON.stringify(snapshots) + '\n')
          else
            for (const s of snapshots)
              stdout.write(`${s.name}\t${s.created}${s.bytes === null ? '' : `\t${s.bytes}`}\n`)
          return 0
        }, args)
    )
    .command(
      'rollback <name>',
      'stop the server, roll the data directory back to a snapshot, start it again (needs --yes)',
      s =>
        s
          .positional('name', { type: 'string' })
          .option('yes', { type: 'boolean', default: false, describe: 'confirm: the current data is replaced' }),
      args =>
        choose(async (a, { log }) => {
          await (await open(a, log)).rollback(a.name, { yes: a.yes })
          return 0
        }, args)
    )
    .command(
      'destroy <name>',
      'delete a snapshot (needs --yes)',
      s =>
        s
          .positional('name', { type: 'string' })
          .option('yes', { type: 'boolean', default: false, describe: 'confirm: the snapshot is deleted for good' }),
      args =>
        choose(async (a, { log }) => {
          await (await open(a, log)).destroy(a.name, { yes: a.yes })
          return 0
        }, args)
    )
    .demandCommand(1, 'give a snapshot command: init, create, list, rollback or destroy')
}
