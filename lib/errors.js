// The errors of the whole program, by what went wrong. Each kind has a stable
// code, defined once in ERROR_CODES (lib/error-codes.js) with what it means
// and what the user can do. Code that wraps another error passes it as
// `cause`, so that its stack is kept.
//
// As with Node's own errors (a TypeError with code ERR_INVALID_ARG_TYPE), the
// name is the family, InputError or RuntimeError, and the code says which
// kind: code that checks for an InputError by its name still finds one.

export { ERROR_CODES, ERROR_FAMILIES, WARNING_CODES } from './error-codes.js'

/** @typedef {import('./error-codes.js').ErrorCode} ErrorCode */
/** @typedef {import('./error-codes.js').InputCode} InputCode */
/** @typedef {import('./error-codes.js').RuntimeCode} RuntimeCode */
/** @typedef {import('./error-codes.js').WarningCode} WarningCode */
/** @typedef {{ cause?: unknown }} ErrorOptions */

/** The base of the program's own errors: a message for the user and a stable code. */
export class PgloadgenError extends Error {
  /**
   * @param {string} message  one line the user can act on
   * @param {ErrorCode} code  a code of ERROR_CODES
   * @param {ErrorOptions} [options]
   */
  constructor(message, code, options) {
    super(message, options)
    this.name = 'PgloadgenError'
    /** @type {ErrorCode} */
    this.code = code
  }
}

// Something the user gave is invalid: a flag, a value, a URL, a file. Found
// before anything touches a database, as far as it can be. The code says
// which kind: new InputError(message, { code: 'PGLG_INVALID_VALUE' }).
export class InputError extends PgloadgenError {
  /**
   * @param {string} message
   * @param {ErrorOptions & { code?: InputCode }} [options]
   */
  constructor(message, options) {
    super(message, options?.code ?? 'PGLG_INVALID_INPUT', options)
    this.name = 'InputError'
  }
}

// An experiment plan or a sidecar schedule that cannot be run as written.
export class InvalidPlanError extends InputError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_INVALID_PLAN' })
  }
}

// A workload that cannot be used: a module that fails to load or breaks the
// contract, a pgbench script that does not parse, settings it refuses.
export class InvalidWorkloadError extends InputError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_INVALID_WORKLOAD' })
  }
}

// A destructive action the user did not confirm (init over rows without
// --yes, drop-partitions without yes: true): nothing was changed.
export class RefusedActionError extends InputError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_REFUSED_DESTRUCTIVE' })
  }
}

// A failure of the environment while doing what was asked: a schema that
// could not be prepared, a snapshot that failed, a server that would not
// start. The code says which kind.
export class RuntimeError extends PgloadgenError {
  /**
   * @param {string} message
   * @param {ErrorOptions & { code?: RuntimeCode }} [options]
   */
  constructor(message, options) {
    super(message, options?.code ?? 'PGLG_RUNTIME_FAILURE', options)
    this.name = 'RuntimeError'
  }
}

// The PostgreSQL server could not be reached, refused the connection, or
// the connection broke while a control statement ran.
export class ServerUnavailableError extends RuntimeError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_SERVER_UNAVAILABLE' })
  }
}

// A program or package the lab needs is not installed (kubectl, zfs, an
// embedded PostgreSQL major).
export class MissingToolError extends RuntimeError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_MISSING_TOOL' })
  }
}

/** Every class above, for the CLI's mapping and the docs' check. */
export const ERROR_CLASSES = [
  InputError,
  InvalidPlanError,
  InvalidWorkloadError,
  RefusedActionError,
  RuntimeError,
  ServerUnavailableError,
  MissingToolError
]

/**
 * The same kind of error as err, with the same code, a new message (err
 * prefixed with where it was found, say) and err as its cause.
 * @template {PgloadgenError} E
 * @param {E} err
 * @param {string} message
 * @returns {E}
 */
export function rephrased(err, message) {
  const Kind = /** @type {new (message: string, options?: ErrorOptions & { code?: ErrorCode }) => E} */ (
    err.constructor
  )
  return new Kind(message, { cause: err, code: err.code })
}

/**
 * err as an error of Kind when it is an InputError of a more general kind:
 * for the entry of a parser whose inner checks throw InputError (a plan's
 * fields, a workload's settings). The message is kept, err is the cause.
 * @param {unknown} err
 * @param {new (message: string, options?: ErrorOptions) => InputError} Kind
 * @returns {unknown}
 */
export function reclassified(err, Kind) {
  // not `err instanceof Kind`: with Kind an InputError, the type checker would narrow err to never
  if (!(err instanceof InputError) || Object.prototype.isPrototypeOf.call(Kind.prototype, err)) return err
  return new Kind(err.message, { cause: err })
}
