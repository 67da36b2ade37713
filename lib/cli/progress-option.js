import { parseInteger } from '../config/number-flags.js'

// -P, --progress of run and experiment: pgbench's flag, whole seconds
// between progress lines on stderr, 0 for none.

export const DEFAULT_PROGRESS_S = 10

/** The yargs option. */
export const progressOption = /** @type {const} */ ({
  alias: 'P',
  type: 'string',
  default: String(DEFAULT_PROGRESS_S),
  describe:
    "seconds between progress lines on stderr, pgbench's -P (0: none); on a terminal the line is redrawn in place"
})

/**
 * @param {unknown} value
 * @returns {number} seconds, 0 for none
 */
export function parseProgress(value) {
  return value === undefined ? DEFAULT_PROGRESS_S : parseInteger(value, '--progress', { min: 0, max: 3600 })
}
