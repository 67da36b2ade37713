import { errorMessage } from '../helpers/error-message.js'

/** too_many_connections: max_connections reached, or the slots left are reserved for other roles. */
export const TOO_MANY_CONNECTIONS = '53300'

/**
 * Whether a failed connection attempt was the server refusing it for want
 * of a connection slot.
 * @param {unknown} err
 */
export function connectRefusal(err) {
  return /** @type {{ code?: unknown }} */ (err)?.code === TOO_MANY_CONNECTIONS
}

// The server refusing connections is said once, when the first client is
// refused, and once more when every refused client has its connection
// again; each refused attempt is counted (RequestStats.refusals). A client
// whose connection works keeps it: only clients that lost theirs, or never
// had one, retry, with backoff.
export class Refusals {
  /**
   * @param {import('../log.js').Logger} log
   * @param {Float64Array} counter   RequestStats.refusals
   * @param {() => number} connections  open now
   */
  constructor(log, counter, connections) {
    this.log = log
    this.counter = counter
    this.connections = connections
    /** @type {Set<number>} clients whose last attempt was refused */
    this.refused = new Set()
    this.atEpisodeStart = 0
  }

  /**
   * @param {number} client
   * @param {unknown} err
   */
  add(client, err) {
    this.counter[0]++
    if (this.refused.size === 0) {
      this.atEpisodeStart = this.counter[0] - 1
      this.log.warn(
        `the server refuses connections (${errorMessage(err)}, SQLSTATE ${TOO_MANY_CONNECTIONS}): keeping the ${this.connections()} open, retrying the others with backoff`,
        'PGLG_W_CONNECTIONS_REFUSED'
      )
    }
    this.refused.add(client)
  }

  /** @param {number} client  stopped: no more attempts, and nothing to say */
  leave(client) {
    this.refused.delete(client)
  }

  /** @param {number} client  connected */
  clear(client) {
    if (!this.refused.delete(client) || this.refused.size > 0) return
    this.log.info(
      `the server accepts connections again (${this.counter[0] - this.atEpisodeStart} attempts refused meanwhile)`
    )
  }
}
