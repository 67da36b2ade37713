import { performance } from 'node:perf_hooks'
import { ConnectionLostError, RequestTimeoutError, ServerError } from '../wire/errors.js'
import { errorMessage } from '../helpers/error-message.js'
import { CANCELS_GAVE_UP, CANCELS_SENT, CANCELS_SUCCEEDED } from '../metrics/request-stats.js'

/**
 * How long a request is given to end once its cancel is sent: then its
 * connection is closed and replaced. A healthy server ends a cancelled
 * statement in milliseconds; a dead link or a hung server never does.
 */
export const CANCEL_GRACE_MS = 1000

/**
 * How long the cancel's own connection may take. Longer than the grace: a
 * server slow to take the cancel (a loaded machine forking its backend)
 * still stops the statement after the client gave up on its connection.
 */
export const CANCEL_TIMEOUT_MS = 5000

/** The SQLSTATE of a statement ended by a cancel (query_canceled). */
export const QUERY_CANCELED = '57014'

/** @typedef {import('../wire/wire-connection.js').WireConnection} WireConnection */

// One client's wait on the server, watched for --request-timeout. A wait
// past the timeout is cancelled on the server first: a CancelRequest for its
// backend, and CANCEL_GRACE_MS for the request to end. When it ends, the
// connection is kept; when it does not, the connection is cut, which fails
// what is in flight on it with a RequestTimeoutError. Either way nothing the
// request sent goes on running on a connection the run has let go of,
// unless the server cannot be reached at all.
export class RequestWatch {
  /** @param {Float64Array} cancels  RequestStats.cancels */
  constructor(cancels) {
    this.cancels = cancels
    // since when (performance.now()) the client has been waiting (0: it is not), and on which connection
    this.since = 0
    /** @type {WireConnection | null} */
    this.on = null
    /** @type {'timeout' | 'shutdown' | null} why the wait was cancelled or cut */
    this.cut = null
    this.timeoutMs = 0
    /** @type {Promise<boolean> | null} the cancel's exchange with the server */
    this.exchange = null
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.graceTimer = null
  }

  /** @param {WireConnection} connection */
  begin(connection) {
    this.on = connection
    this.since = performance.now()
  }

  end() {
    this.since = 0
  }

  /**
   * Cancels a wait older than timeoutMs (the generator's sweep).
   * @param {number} now  performance.now()
   * @param {number} timeoutMs
   */
  check(now, timeoutMs) {
    if (this.since === 0 || now - this.since < timeoutMs) return
    this.timeoutMs = timeoutMs
    this.cancel('timeout')
  }

  /** The run stops and the request is still running: cancelled on the server before its connection closes. */
  cancelAtShutdown() {
    if (this.since !== 0 && this.cut === null) this.cancel('shutdown')
  }

  /** @param {'timeout' | 'shutdown'} reason */
  cancel(reason) {
    this.since = 0
    this.cut = reason
    const connection = this.on
    if (connection === null || connection.broken) return
    if (connection.backendKey === null) {
      connection.fail(this.cutError())
      return
    }
    this.cancels[CANCELS_SENT]++
    this.exchange = connection.cancel(CANCEL_TIMEOUT_MS)
    this.graceTimer = setTimeout(() => {
      this.graceTimer = null
      this.cancels[CANCELS_GAVE_UP]++
      connection.fail(this.cutError())
    }, CANCEL_GRACE_MS)
  }

  cutError() {
    return this.cut === 'shutdown'
      ? new ConnectionLostError('still running at the shutdown timeout; connection closed')
      : new RequestTimeoutError(this.timeoutMs)
  }

  /** Whether the wait that just ended was cut by the request timeout. */
  get timedOut() {
    return this.cut === 'timeout'
  }

  /**
   * How the failure of a request the watch cut is counted: the timeout, and
   * whether the server cancelled it, in the words of the message.
   * @param {unknown} err
   */
  failureMessage(err) {
    if (this.cut === null || err instanceof RequestTimeoutError) return errorMessage(err)
    const cancelled = err instanceof ServerError && err.code === QUERY_CANCELED
    if (this.cut === 'shutdown') {
      return cancelled ? 'still running at the shutdown timeout; cancelled on the server' : errorMessage(err)
    }
    const timedOut = new RequestTimeoutError(this.timeoutMs).message
    return cancelled ? `${timedOut}; cancelled on the server` : `${errorMessage(err)} (request timed out)`
  }

  /**
   * The wait a cancel was sent for has ended: the connection is kept when it
   * still works. Then waits for the cancel's exchange to finish, so that a
   * cancel arriving late cannot reach the connection's next statement; a
   * connection that was cut has no next statement, and its cancel goes on
   * alone.
   * @param {WireConnection} connection
   */
  async settle(connection) {
    if (this.graceTimer !== null) {
      clearTimeout(this.graceTimer)
      this.graceTimer = null
      if (!connection.broken) this.cancels[CANCELS_SUCCEEDED]++
    }
    this.cut = null
    const exchange = this.exchange
    this.exchange = null
    if (exchange !== null && !connection.broken) await exchange
  }
}
