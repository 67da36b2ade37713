// Errors of the wire client. A ServerError carries the server's SQLSTATE; a
// ConnectionLostError has none, like a socket error, so that callers that
// sort errors by code see a dead connection as one.

/** An error from the server, with its SQLSTATE in code. */
export class ServerError extends Error {
  /** @param {Record<string, string>} fields  ErrorResponse fields by their one-letter code */
  constructor(fields) {
    super(fields.M ?? 'unknown server error')
    this.name = 'ServerError'
    this.code = fields.C
    this.severity = fields.V ?? fields.S
    if (fields.D !== undefined) this.detail = fields.D
    if (fields.H !== undefined) this.hint = fields.H
    // 1-based character offset into the statement text
    if (fields.P !== undefined) this.position = Number(fields.P)
  }
}

/** The connection failed: no SQLSTATE, like a socket error. */
export class ConnectionLostError extends Error {
  /**
   * @param {string} message
   * @param {{ cause?: unknown }} [options]
   */
  constructor(message, options) {
    super(message, options)
    this.name = 'ConnectionLostError'
  }
}

/**
 * A statement sent in a pipeline after one that failed: the server skipped
 * it, as it skips everything up to the next Sync.
 */
export class PipelineAbortedError extends Error {
  constructor() {
    super('pipeline aborted: an earlier statement of the pipeline failed, so this one was not run')
    this.name = 'PipelineAbortedError'
  }
}

/**
 * Whether a write that failed with err may have committed: a server error
 * means it did not, unless it is a PANIC (the server died writing WAL, and
 * what reached the disk before, this write's commit among it perhaps,
 * comes back with crash recovery); anything else (the connection broke, a
 * timeout cut it) leaves its outcome unknown.
 * @param {unknown} err
 */
export function leavesOutcomeUnknown(err) {
  if (err instanceof ServerError) return err.severity === 'PANIC'
  return !(err instanceof PipelineAbortedError)
}

/**
 * No answer came within the request timeout: the connection was cut, so
 * what was sent on it may or may not have committed.
 */
export class RequestTimeoutError extends ConnectionLostError {
  /** @param {number} timeoutMs */
  constructor(timeoutMs) {
    super(`request timed out after ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`)
    this.name = 'RequestTimeoutError'
    this.timeoutMs = timeoutMs
  }
}
