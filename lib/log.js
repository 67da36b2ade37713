// A small leveled logger that writes one line per message to stderr, so that
// stdout stays free for the JSON summary.

const LEVELS = /** @type {const} */ ({ trace: 10, debug: 20, info: 30, warn: 40, error: 50, silent: 100 })

/** @typedef {keyof typeof LEVELS} LevelName */
/**
 * A warning may give its code (lib/errors.js), which its line shows:
 * `pgloadgen warn [PGLG_W_DISK_FULL]: …`.
 * @typedef {{ trace: (m: string) => void, debug: (m: string) => void, info: (m: string) => void,
 *     warn: (m: string, code?: import('./error-codes.js').WarningCode) => void, error: (m: string) => void,
 *     level: LevelName }} Logger
 */

/**
 * @param {string} name
 * @returns {name is LevelName}
 */
export function isLevelName(name) {
  return Object.hasOwn(LEVELS, name)
}

/**
 * @param {{ level?: string, stream?: { write: (s: string) => unknown } }} [options]
 * @returns {Logger}
 */
export function createLogger(options = {}) {
  const requested = options.level ?? process.env.LOG_LEVEL ?? 'info'
  const level = isLevelName(requested) ? requested : 'info'
  const stream = options.stream ?? process.stderr
  const threshold = LEVELS[level]
  /** @param {LevelName} name */
  const at = name =>
    LEVELS[name] >= threshold
      ? (/** @type {string} */ message, /** @type {string} */ code = '') => {
          stream.write(`pgloadgen ${name}${code ? ` [${code}]` : ''}: ${message}\n`)
        }
      : () => {}
  return { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), level }
}
