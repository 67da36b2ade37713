import { validateRunArgs } from './run-args.js'
import { StopSignal } from '../helpers/stop-signal.js'
import { Screen } from '../terminal/screen.js'

/** @typedef {import('./run-args.js').RunArgs} RunArgs */

/**
 * pgloadgen run: hammer PostgreSQL at fixed concurrency until the duration
 * ends or a signal arrives.
 * @param {RunArgs} args
 * @param {{ log: import('../log.js').Logger, stdout: { write: (s: string) => unknown }, argv?: readonly string[] }} io
 * @returns {Promise<number>} exit code
 */
export async function runCommand(args, { log: plainLog, stdout, argv }) {
  const options = await validateRunArgs(args, argv)
  // the schedule's parser (and YAML) only for a run that has a schedule
  const rules = args.schedule ? await (await import('../sidecar/schedule.js')).loadSchedule(args.schedule) : null
  // from here every log line goes through the screen: above the progress line on a terminal
  const screen = new Screen({ stream: process.stderr, level: plainLog.level })
  const log = screen.log
  const stop = new StopSignal(log)
  try {
    // the generator and its collector load once every input is known to be good
    const { runLoad } = await import('./run-load.js')
    return await runLoad(args, options, rules, stop, { log, stdout, screen })
  } finally {
    stop.dispose()
    screen.end()
  }
}
