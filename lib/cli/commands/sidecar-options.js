import { DEFAULT_EVENTS_FILE } from '../target-options.js'
import { statsBuilder } from '../stats-options.js'

/** @param {import('yargs').Argv} y */
export function sidecarBuilder(y) {
  return statsBuilder(y)
    .option('http-port', {
      alias: 'p',
      type: 'string',
      default: '9802',
      describe: 'port of /metrics (0: any free port)'
    })
    .option('schedule', {
      type: 'string',
      demandOption: 'give the schedule file with --schedule',
      describe: 'schedule file (JSON or YAML)'
    })
    .option('events', {
      type: 'string',
      default: DEFAULT_EVENTS_FILE,
      describe: 'file the events are appended to (NDJSON)'
    })
}
