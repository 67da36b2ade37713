// Errors of pgbench scripts. A syntax error is found when the script is read
// and stops the run before anything is sent (the CLI prints it as
// FILE:LINE: message, exit 2); a runtime error fails one request, is counted
// by its message, and the client goes on with its next script.

export class ScriptSyntaxError extends Error {
  /**
   * @param {string} message   pgbench's wording, without the location
   * @param {{ column?: number, cause?: unknown }} [where]  0-based offset in the text that was parsed, when
   *   known; the error this one reports, if any
   */
  constructor(message, { column, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause })
    this.name = 'ScriptSyntaxError'
    this.column = column
  }
}

export class ScriptRuntimeError extends Error {
  /**
   * @param {string} message  pgbench's wording, e.g. 'undefined variable "aid"'
   * @param {{ cause?: unknown }} [options]
   */
  constructor(message, options) {
    super(message, options)
    this.name = 'ScriptRuntimeError'
  }
}

export class ScriptLoadError extends ScriptSyntaxError {
  /**
   * A script that cannot be used, found while reading -f / -b: the message is
   * one line, ready to print, located as FILE:LINE: when it is about a line.
   * @param {string} message
   * @param {{ cause?: unknown }} [options]
   */
  constructor(message, options) {
    super(message, options)
    this.name = 'ScriptLoadError'
  }
}

export class RandomSeedError extends Error {
  /** @param {string} message  pgbench's wording for a bad --random-seed value */
  constructor(message) {
    super(message)
    this.name = 'RandomSeedError'
  }
}
