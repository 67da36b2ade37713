import yargs from 'yargs'
import { createLogger } from '../log.js'
import { runBuilder } from './run-options.js'
import { workloadOptionSpecs } from './workload-flags.js'
import { actionCommands } from './commands/action-commands.js'
import { snapshotSubcommands } from './commands/snapshot-command.js'
import { sidecarBuilder } from './commands/sidecar-options.js'
import { workloadsBuilder, workloadsCommand } from './commands/workloads-command.js'
import { initBuilder } from './commands/init-options.js'
import { statsBuilder } from './stats-options.js'
import { forecastBuilder } from './commands/forecast-command.js'
import { mergeBuilder } from './commands/merge-command.js'
import { compareCommandModule as compare } from './commands/compare-command.js'
import { k8sSubcommands } from './commands/k8s-command.js'
import { serverSubcommands } from './commands/server-command.js'
import { progressOption } from './progress-option.js'
import { capacityBuilder } from './commands/capacity-command.js'
import { describeChain, exitCodeFor, UNEXPECTED_EXIT_CODE } from './exit-codes.js'

/**
 * A command's work, loaded when it is chosen: parsing, --help and a refused
 * argument never load the generator, the collector or the embedded server.
 * @param {() => Promise<import('./commands/action-commands.js').CommandRun>} load
 * @returns {import('./commands/action-commands.js').CommandRun}
 */
const lazy = load => async (args, io) => (await load())(args, io)

const runCommand = lazy(async () => (await import('./run-command.js')).runCommand)
const capacityCommand = lazy(async () => (await import('./commands/capacity-command-run.js')).capacityRun)
const initCommand = lazy(async () => (await import('./commands/init-command.js')).initCommand)
const statsCommand = lazy(async () => (await import('./stats-command.js')).statsCommand)
const forecastCommand = lazy(async () => (await import('./commands/forecast-command.js')).forecastCommand)
const sidecarCommand = lazy(async () => (await import('./commands/sidecar-command.js')).sidecarCommand)
const experimentCommand = lazy(async () => (await import('./commands/experiment-command.js')).experimentCommand)
const reportCommand = lazy(async () => (await import('../report/index.js')).reportCommand)
const mergeCommand = lazy(async () => (await import('./commands/merge-command.js')).mergeCommand)

/**
 * Runs the CLI and returns the exit code: 0 done, 1 a runtime failure,
 * 2 bad input. Errors are one line on stderr; --log-level debug adds their
 * stacks and causes.
 * @param {string[]} argv
 * @returns {Promise<number>}
 */
export async function main(argv) {
  /** @type {import('../log.js').Logger} */
  let log = createLogger()
  /** @type {string | null} */
  let usageProblem = null
  /** @type {(() => Promise<number>) | null} */
  let action = null
  /**
   * Handlers only choose what to run: yargs calls them even when a
   * strict-mode check fails, so the choice runs after parsing succeeded.
   * @param {import('./commands/action-commands.js').CommandRun} run
   * @param {any} args
   */
  const choose = (run, args) => {
    action = () => {
      log = createLogger({ level: args.logLevel })
      return run(args, { log, stdout: process.stdout, argv })
    }
  }

  // A workload's own flags are known only once it is loaded.
  const workloadSpecs = await workloadOptionSpecs(argv)
  const parser = cliParser(argv, workloadSpecs, choose)
    .fail((message, err) => {
      if (err) throw err
      usageProblem = message
    })
    .exitProcess(false)

  try {
    await parser.parseAsync()
    if (usageProblem !== null) return fail(log, usageProblem, 2)
    // TypeScript cannot see that the command handler may have set it.
    const chosen = /** @type {(() => Promise<number>) | null} */ (action)
    if (chosen === null) return 0 // --help
    return await chosen()
  } catch (err) {
    const code = exitCodeFor(err)
    if (code !== null) fail(log, /** @type {Error} */ (err).message, code)
    else log.error(`unexpected error: ${/** @type {Error | undefined} */ (err)?.message ?? err}`)
    // --log-level debug (or LOG_LEVEL=debug) adds where it failed: the stacks of the error and of its causes
    log.debug(describeChain(err))
    return code ?? UNEXPECTED_EXIT_CODE
  }
}

/**
 * Every command, its arguments and options, as yargs is given them: what
 * main parses with, and what docs/cli.md is generated from. Handlers only
 * pass the chosen command's run to choose.
 * @param {string[]} argv
 * @param {Record<string, import('../workloads/options.js').OptionSpec>} workloadSpecs
 *   the flags of the workload argv names
 * @param {(run: import('./commands/action-commands.js').CommandRun, args: any) => void} choose
 */
export function cliParser(argv, workloadSpecs, choose) {
  const parser = yargs(argv)
    .scriptName('pgloadgen')
    .usage('$0 <command> [options]')
    .strict()
    .help()
    .version(false)
    .wrap(100)
    .option('log-level', {
      type: 'string',
      describe: 'trace, debug, info, warn, error or silent (also LOG_LEVEL)',
      global: true
    })
  loadCommands(parser, workloadSpecs, choose)
  for (const command of actionCommands) {
    parser.command(command.command, command.describe, command.builder, args => choose(command.run, args))
  }
  labCommands(parser, choose)
  groupCommands(parser, choose)
  parser.demandCommand(
    1,
    'give a command: run, capacity, init, workloads, stats, forecast, vacuum, analyze, checkpoint, reset-stats, evict-cache, drop-partitions, delete, snapshot, sidecar, experiment, report, merge, compare, server or k8s'
  )
  return parser
}

/**
 * The commands of a load, its tables and its workloads: run, capacity, init,
 * workloads, stats, forecast.
 * @param {import('yargs').Argv} parser
 * @param {Record<string, import('../workloads/options.js').OptionSpec>} workloadSpecs
 * @param {(run: import('./commands/action-commands.js').CommandRun, args: any) => void} choose
 */
function loadCommands(parser, workloadSpecs, choose) {
  parser
    .command(
      'run [pgUrl]',
      'hammer PostgreSQL at a fixed concurrency with a workload: built-in, pgbench scripts or a module',
      y => runBuilder(y, workloadSpecs),
      args => choose(runCommand, args)
    )
    .command(
      'capacity [pgUrl]',
      'the highest open-loop rate a workload holds an objective at (p99<10ms, lag_p99<50ms), in steps, with its interval',
      y => capacityBuilder(y, workloadSpecs),
      args => choose(capacityCommand, args)
    )
    .command(
      'init [pgUrl]',
      "create and fill pgbench's tables, as pgbench -i does (for -b tpcb-like and the other built-in scripts)",
      initBuilder,
      args => choose(initCommand, args)
    )
    .command(
      'workloads [module]',
      'list the built-in workloads (request types, default mixes), or describe a workload module',
      workloadsBuilder,
      args => choose(workloadsCommand, args)
    )
    .command(
      'stats [pgUrl]',
      "export PostgreSQL statistics on /metrics, without load (the old exporter's drop-in)",
      statsBuilder,
      args => choose(statsCommand, args)
    )
    .command(
      'forecast [pgUrl]',
      'when autovacuum next takes each table of a loaded server, and what other settings would change (--set)',
      forecastBuilder,
      args => choose(forecastCommand, args)
    )
}

/**
 * The commands of the lab around a load: sidecar, experiment, report,
 * merge, compare.
 * @param {import('yargs').Argv} parser
 * @param {(run: import('./commands/action-commands.js').CommandRun, args: any) => void} choose
 */
function labCommands(parser, choose) {
  parser
    .command(
      'sidecar [pgUrl]',
      'run the actions of a schedule (VACUUM, FREEZE, CHECKPOINT, …) at times or when conditions on the stats hold',
      sidecarBuilder,
      args => choose(sidecarCommand, args)
    )
    .command(
      'experiment <plan>',
      'run an experiment plan: prepare, snapshot, variants replayed from the snapshot, report',
      y =>
        y
          .positional('plan', {
            type: 'string',
            describe: 'plan file (JSON or YAML), e.g. notes/experiments/freeze-vs-vacuum.yaml'
          })
          .option('out', {
            type: 'string',
            demandOption: 'give the output directory with --out',
            describe: 'new directory for samples, events, summary.json and report.html'
          })
          .option('progress', progressOption),
      args => choose(experimentCommand, args)
    )
    .command(
      'report <dir>',
      'write report.html (and summary.json for an experiment) for a recorded run or experiment',
      y =>
        y.positional('dir', { type: 'string', describe: 'a run --record directory or an experiment --out directory' }),
      args => choose(reportCommand, args)
    )
    .command(
      'merge <dirs..>',
      "merge the run directories of a load's instances (run --instance I/N --record DIR) into one summary and report, exactly",
      mergeBuilder,
      args => choose(mergeCommand, args)
    )
    .command(compare.command, compare.describe, compare.builder, args => choose(compare.run, args))
}

/**
 * The commands that only group subcommands: snapshot, server, k8s.
 * @param {import('yargs').Argv} parser
 * @param {(run: import('./commands/action-commands.js').CommandRun, args: any) => void} choose
 */
function groupCommands(parser, choose) {
  parser
    .command('snapshot', 'take, list, roll back and destroy snapshots of the data directory', y =>
      snapshotSubcommands(y, choose)
    )
    .command(
      'server',
      'the PostgreSQL majors of the embedded server: install fetches them ahead of time, list shows them',
      y => serverSubcommands(y, choose)
    )
    .command('k8s', 'run a load on Kubernetes: render writes the manifests of N instances starting at one moment', y =>
      k8sSubcommands(y, choose)
    )
}

/**
 * @param {import('../log.js').Logger} log
 * @param {string} message
 * @param {number} code
 */
function fail(log, message, code) {
  // yargs repeats stray arguments verbatim, and one may be a URL with a password.
  const line = withoutCamelCaseEchoes(message.split('\n')[0].replace(/(\/\/[^:/@\s]*):[^@\s]*@/g, '$1@'))
  if (log.level !== 'silent') process.stderr.write(`pgloadgen: ${line}\n`)
  return code
}

/**
 * yargs reports an unknown --some-flag twice, as some-flag and someFlag;
 * name it once, as it was typed.
 * @param {string} line
 */
export function withoutCamelCaseEchoes(line) {
  const match = /^(Unknown arguments?): (.*)$/.exec(line)
  if (!match) return line
  const names = match[2].split(', ')
  const typed = new Set(
    names.filter(name => name.includes('-')).map(name => name.replace(/-+([^-])/g, (_, c) => c.toUpperCase()))
  )
  const kept = names.filter(name => !typed.has(name))
  return `${kept.length === 1 ? 'Unknown argument' : 'Unknown arguments'}: ${kept.join(', ')}`
}
