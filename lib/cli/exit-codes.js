import { ERROR_CODES, ERROR_FAMILIES, PgloadgenError } from '../errors.js'

// The one place that decides how the process exits for an error: lower
// layers throw coded errors (lib/errors.js) and do not exit. The exit code
// of a code is its family's, from the table of lib/error-codes.js: 2 bad input
// (nothing touched a database), 1 a runtime failure. 3, a failed threshold,
// is not an error: the run command returns it.

/** Exit code of an error the program did not expect (a bug, or an uncoded failure). */
export const UNEXPECTED_EXIT_CODE = 1

/** @type {Readonly<Record<string, number>>} */
export const EXIT_CODES = Object.freeze(
  Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { family }]) => [code, ERROR_FAMILIES[family].exitCode]))
)

/**
 * The exit code for err, or null when it is not one of the program's coded
 * errors (the CLI then reports it as unexpected).
 * @param {unknown} err
 * @returns {number | null}
 */
export function exitCodeFor(err) {
  if (!(err instanceof PgloadgenError)) return null
  return Object.hasOwn(EXIT_CODES, err.code) ? EXIT_CODES[err.code] : null
}

/**
 * The stack of err and of every error in its cause chain, for --log-level
 * debug: the one line the user sees names what failed, this shows where.
 * @param {unknown} err
 * @returns {string}
 */
export function describeChain(err) {
  /** @type {string[]} */
  const parts = []
  const seen = new Set()
  // a cause chain may loop back on itself: each error is shown once
  for (let at = err; at !== undefined && at !== null && !seen.has(at); at = causeOf(at)) {
    seen.add(at)
    let text = at instanceof Error ? String(at.stack ?? `${at.name}: ${at.message}`) : String(at)
    // the code beside the name, as Node shows its own: InputError [PGLG_INVALID_PLAN]: …
    if (at instanceof PgloadgenError) text = text.replace(`${at.name}: `, `${at.name} [${at.code}]: `)
    parts.push(parts.length === 0 ? text : `caused by ${text}`)
  }
  return parts.join('\n')
}

/**
 * @param {unknown} err
 * @returns {unknown}
 */
function causeOf(err) {
  return typeof err === 'object' ? /** @type {{ cause?: unknown }} */ (err)?.cause : undefined
}
