// The errors of the whole program, by what the user can do about them.

// Errors the user can fix by changing the command line. The CLI prints their
// message on one line and exits 2 before anything touches a database.
export class UsageError extends Error {
  /** @param {string} message */
  constructor (message) {
    super(message)
    this.name = 'UsageError'
    this.exitCode = 2
  }
}

// Failures of the environment (server unreachable, server would not start).
// One line, exit 1.
export class RuntimeError extends Error {
  /** @param {string} message */
  constructor (message) {
    super(message)
    this.name = 'RuntimeError'
    this.exitCode = 1
  }
}
