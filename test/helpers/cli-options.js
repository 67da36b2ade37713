// What the CLI under test offers, read from its --help, so that a test can say
// precisely that a feature it needs has not landed yet instead of failing on
// "Unknown argument".
import { spawnSync } from 'node:child_process'
import { REPO, cliCommand } from './cli.js'

/** @type {Map<string, string>} */
const helpCache = new Map()

/**
 * Whether `pgloadgen <command> --help` lists the option.
 * @param {string} command   e.g. run
 * @param {string} option    e.g. --stats-interval
 */
export function cliHasOption(command, option) {
  let help = helpCache.get(command)
  if (help === undefined) {
    const [file, ...argv] = cliCommand([command, '--help'])
    const result = spawnSync(file, argv, { cwd: REPO, encoding: 'utf8', timeout: 30000 })
    help = `${result.stdout}${result.stderr}`
    helpCache.set(command, help)
  }
  return new RegExp(`(^|\\s)${option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|=|,|$)`, 'm').test(help)
}
