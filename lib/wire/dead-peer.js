import { createRequire } from 'node:module'
import { isMainThread } from 'node:worker_threads'

// How a connection to a server that went silent (a cable pulled, a
// firewall dropping packets, a host that vanished) is noticed without a
// request timeout: the kernel's own checks, set on every socket.
//
// - TCP keepalive: an idle connection is probed after KEEPALIVE_IDLE_MS;
//   libuv probes once a second after that, ten times.
// - TCP_USER_TIMEOUT (Linux): data sent and not acknowledged for
//   USER_TIMEOUT_MS ends the connection. Keepalive alone cannot see this
//   case: while a request is unanswered the socket is not idle, and the
//   kernel retransmits for about 15 minutes before it gives up.
//
// Node has no setter for TCP_USER_TIMEOUT; the net-keepalive package sets
// it through setsockopt. It is loaded on the first connection only, and a
// platform without it (or without the package's native part) keeps
// keepalive alone: deadPeerSupport() says which. Worker threads do not load
// it: its native part (ffi-rs) crashes the process when such a thread is
// terminated (seen with Node 20.20), so the clients of --threads N rely on
// the request timeout and keepalive.

/** An idle connection is probed after this long. */
export const KEEPALIVE_IDLE_MS = 10000
/** Data unacknowledged for this long ends the connection. */
export const USER_TIMEOUT_MS = 20000

/** @type {{ setUserTimeout: (socket: import('node:net').Socket, ms: number) => boolean } | null | undefined} */
let keepalive
/** @type {string | null} why TCP_USER_TIMEOUT is not set, when it is not */
let unsupported = null

/** @returns {{ setUserTimeout: (socket: import('node:net').Socket, ms: number) => boolean } | null} */
function loadKeepalive() {
  if (keepalive !== undefined) return keepalive
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    unsupported = `${process.platform} has no TCP_USER_TIMEOUT`
    keepalive = null
    return keepalive
  }
  if (!isMainThread) {
    // its native part crashes the process when a worker thread that loaded it ends
    unsupported = 'not set in worker threads (--threads): the request timeout bounds their waits'
    keepalive = null
    return keepalive
  }
  try {
    keepalive = createRequire(import.meta.url)('net-keepalive')
  } catch (err) {
    unsupported = `net-keepalive could not be loaded: ${/** @type {Error} */ (err).message}`
    keepalive = null
  }
  return keepalive ?? null
}

/**
 * Sets keepalive, and TCP_USER_TIMEOUT where the platform has it, on a
 * connected TCP socket. A Unix socket, or a server on the loopback
 * interface, has no network between: when the server goes, the kernel
 * resets the connection at once, and the package (about 5 MiB of resident
 * memory) is not loaded for it.
 * @param {import('node:net').Socket} socket
 */
export function watchForDeadPeer(socket) {
  socket.setKeepAlive(true, KEEPALIVE_IDLE_MS)
  const peer = socket.remoteAddress
  if (peer === undefined || isLoopback(peer)) return
  const setter = loadKeepalive()
  if (setter === null) return
  try {
    setter.setUserTimeout(socket, USER_TIMEOUT_MS)
  } catch (err) {
    unsupported = `setting TCP_USER_TIMEOUT failed: ${/** @type {Error} */ (err).message}`
    keepalive = null
  }
}

/** @param {string} address */
function isLoopback(address) {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.')
}

/** Null when TCP_USER_TIMEOUT is set on connections, else why not. */
export function deadPeerSupport() {
  loadKeepalive()
  return unsupported
}
