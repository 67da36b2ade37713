import { readFileSync, readdirSync, readlinkSync } from 'node:fs'

// The local PostgreSQL server the generator talks to, found without asking
// it: the generator's own TCP connections (/proc/self/fd, /proc/net/tcp)
// end at a port that a process of this machine listens on; that process,
// when it is one, is the postmaster, and its children are the server's
// processes (host-cpu.js). A server elsewhere, or one whose descriptors
// cannot be read (another user's, without root), is not found: null.

/**
 * The postmaster's pid, or null.
 * @param {number[]} pids   every process of the machine
 * @returns {number | null}
 */
export function findLocalServer(pids) {
  const sockets = tcpSockets()
  if (sockets.size === 0) return null
  const ours = socketInodes('self')
  /** @type {Map<string, number>} */
  const ports = new Map()
  for (const inode of ours) {
    const s = sockets.get(inode)
    if (s && s.state === '01') ports.set(s.remotePort, (ports.get(s.remotePort) ?? 0) + 1)
  }
  // the port most of our connections go to: the load's server
  const byUse = [...ports].sort((a, b) => b[1] - a[1]).map(([port]) => port)
  for (const port of byUse) {
    const listening = new Set(
      [...sockets].filter(([, s]) => s.state === '0A' && s.localPort === port).map(([inode]) => inode)
    )
    if (listening.size === 0) continue
    for (const pid of pids) {
      if (pid === process.pid) continue
      for (const inode of socketInodes(String(pid))) if (listening.has(inode)) return pid
    }
  }
  return null
}

/**
 * The TCP sockets of the machine by inode, from /proc/net/tcp and tcp6.
 * @returns {Map<string, { localPort: string, remotePort: string, state: string }>}
 */
function tcpSockets() {
  const out = new Map()
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
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
      out.set(f[9], { localPort: f[1].split(':')[1], remotePort: f[2].split(':')[1], state: f[3] })
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
