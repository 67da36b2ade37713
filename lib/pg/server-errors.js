import { RuntimeError, ServerUnavailableError } from '../errors.js'
import { isDiskFullError } from './disk-full.js'

// The errors of node-postgres, of the server and of the socket under them
// that become the program's own, mapped in one table: a SQLSTATE (or its
// class, two characters) or a socket's errno, to a code of lib/error-codes.js.
// An error the table does not name keeps the code its caller gives. The
// generator's counting of failed requests does not go through here: this is
// for the errors that end a command.

/** @type {Readonly<Record<string, import('../errors.js').RuntimeCode>>} */
export const SERVER_ERROR_CODES = Object.freeze({
  // the connection could not be made, or broke
  '08': 'PGLG_SERVER_UNAVAILABLE',
  28000: 'PGLG_SERVER_UNAVAILABLE',
  '28P01': 'PGLG_SERVER_UNAVAILABLE',
  '3D000': 'PGLG_SERVER_UNAVAILABLE',
  53300: 'PGLG_SERVER_UNAVAILABLE',
  '57P01': 'PGLG_SERVER_UNAVAILABLE',
  '57P02': 'PGLG_SERVER_UNAVAILABLE',
  '57P03': 'PGLG_SERVER_UNAVAILABLE',
  ECONNREFUSED: 'PGLG_SERVER_UNAVAILABLE',
  ECONNRESET: 'PGLG_SERVER_UNAVAILABLE',
  EHOSTUNREACH: 'PGLG_SERVER_UNAVAILABLE',
  ENETUNREACH: 'PGLG_SERVER_UNAVAILABLE',
  ENOTFOUND: 'PGLG_SERVER_UNAVAILABLE',
  EAI_AGAIN: 'PGLG_SERVER_UNAVAILABLE',
  EPIPE: 'PGLG_SERVER_UNAVAILABLE',
  ETIMEDOUT: 'PGLG_SERVER_UNAVAILABLE',
  // the server could not write for want of space
  53100: 'PGLG_DISK_FULL'
})

/**
 * The code of the table for err, by its SQLSTATE, its class or its errno,
 * or null when the table does not name it. A quota, which has no SQLSTATE
 * of its own, is found by its text (./disk-full.js).
 * @param {unknown} err
 * @returns {import('../errors.js').RuntimeCode | null}
 */
export function serverErrorCode(err) {
  const code = /** @type {{ code?: unknown }} */ (err)?.code
  if (typeof code === 'string') {
    if (Object.hasOwn(SERVER_ERROR_CODES, code)) return SERVER_ERROR_CODES[code]
    if (/^[0-9A-Z]{5}$/.test(code) && Object.hasOwn(SERVER_ERROR_CODES, code.slice(0, 2))) {
      return SERVER_ERROR_CODES[code.slice(0, 2)]
    }
  }
  return isDiskFullError(err) ? 'PGLG_DISK_FULL' : null
}

/**
 * The program's error for a driver's or a server's error err: the code the
 * table gives it, or else fallback; err is its cause.
 * @param {string} message
 * @param {unknown} err
 * @param {import('../errors.js').RuntimeCode} fallback
 * @returns {RuntimeError}
 */
export function codedServerError(message, err, fallback) {
  const code = serverErrorCode(err) ?? fallback
  if (code === 'PGLG_SERVER_UNAVAILABLE') return new ServerUnavailableError(message, { cause: err })
  return new RuntimeError(message, { code, cause: err })
}
