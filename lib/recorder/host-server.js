import { readFileSync, readdirSync, readlinkSync } from 'node:fs'

// The local PostgreSQL server the generator talks to, found without asking
// it: the generator's own TCP connections (/proc/self/fd, /proc/net/tcp)
// end at an address and port that a process of this machine listens on;
// that process, when it is one, is the postmaster, and its children are the
// server's processes (host-cpu.js). A server in a network namespace of its
// own on this machine (a container's) is found too: its postmaster's
// /proc/<pid>/net/tcp lists the sockets of its namespace. A server
// elsewhere, or one whose descriptors cannot be read (another user's,
// without root), is not found: null.

/**
 * @typedef {{ localAddress: string, localPort: string, remoteAddress: string, remotePort: string,
 *   state: string }} TcpSocket
 */

// a listening socket's address when it listens on every address
const WILDCARDS = new Set(['00000000', '00000000000000000000000000000000'])
const LISTEN = '0A'
const ESTABLISHED = '01'

/**
 * The postmaster's pid, or null.
 * @param {number[]} pids   every process of the machine
 * @returns {number | null}
 */
export function findLocalServer(pids) {
  const sockets = tcpSockets('self')
  if (sockets.size === 0) return null
  /** @type {Map<string, { address: string, port: string, n: number }>} */
  const ends = new Map()
  for (const inode of socketInodes('self')) {
    const s = sockets.get(inode)
    if (!s || s.state !== ESTABLISHED) continue
    const key = `${s.remoteAddress}:${s.remotePort}`
    const end = ends.get(key) ?? { address: s.remoteAddress, port: s.remotePort, n: 0 }
    end.n++
    ends.set(key, end)
  }
  // the address most of our connections go to: the load's server
  const byUse = [...ends.values()].sort((a, b) => b.n - a.n)
  const ours = new Set([...sockets.values()].map(s => s.localAddress))
  for (const end of byUse) {
    const here = listenersOf(sockets, end, ours.has(end.address))
    const found = here.size > 0 ? ownerOf(pids, here) : inOtherNamespace(pids, end)
    if (found !== null) return found
  }
  return null
}

/**
 * The inodes of the sockets of a table that listen where `end` goes: on
 * its address, or on every address when the address is one of this
 * namespace's.
 * @param {Map<string, TcpSocket>} sockets
 * @param {{ address: string, port: string }} end
 * @param {boolean} addressIsHere
 */
function listenersOf(sockets, end, addressIsHere) {
  const out = new Set()
  for (const [inode, s] of sockets) {
    if (s.state !== LISTEN || s.localPort !== end.port) continue
    if (s.localAddress === end.address || (addressIsHere && WILDCARDS.has(s.localAddress))) out.add(inode)
  }
  return out
}

/**
 * The process that holds one of the sockets.
 * @param {number[]} pids
 * @param {Set<string>} inodes
 */
function ownerOf(pids, inodes) {
  for (const pid of pids) {
    if (pid === process.pid) continue
    for (const inode of socketInodes(String(pid))) if (inodes.has(inode)) return pid
  }
  return null
}

/**
 * A postmaster (a postgres process whose parent is not one) in another
 * network namespace that listens on the address `end` goes to.
 * @param {number[]} pids
 * @param {{ address: string, port: string }} end
 */
function inOtherNamespace(pids, end) {
  for (const pid of pids) {
    if (pid === process.pid || !isPostmaster(pid)) continue
    const listening = listenersOf(tcpSockets(String(pid)), end, false)
    if (listening.size > 0 && socketInodes(String(pid)).some(inode => listening.has(inode))) return pid
  }
  return null
}

/** @param {number} pid */
function isPostmaster(pid) {
  const stat = readStat(pid)
  if (stat?.name !== 'postgres') return false
  return readStat(stat.ppid)?.name !== 'postgres'
}

/**
 * A process's name and parent, from /proc/<pid>/stat.
 * @param {number} pid
 * @returns {{ name: string, ppid: number } | null}
 */
function readStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'))
    return { name, ppid: Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]) }
  } catch {
    return null
  }
}

/**
 * The TCP sockets of a process's network namespace by inode, from
 * /proc/<pid>/net/tcp and tcp6.
 * @param {string} pid   a pid, or 'self'
 * @returns {Map<string, TcpSocket>}
 */
function tcpSockets(pid) {
  const out = new Map()
  for (const file of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
    let text
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/)
      if (f.length < 10) continue
      const [localAddress, localPort] = f[1].split(':')
      const [remoteAddress, remotePort] = f[2].split(':')
      out.set(f[9], { localAddress, localPort, remoteAddress, remotePort, state: f[3] })
    }
  }
  return out
}

/**
 * The socket inodes a process holds open.
 * @param {string} pid   a pid, or 'self'
 * @returns {string[]}
 */
function socketInodes(pid) {
  /** @type {string[]} */
  let fds
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }
  const out = []
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (match) out.push(match[1])
    } catch {
      // closed meanwhile
    }
  }
  return out
}
