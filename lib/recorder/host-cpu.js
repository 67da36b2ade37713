import { readFileSync, readdirSync } from 'node:fs'
import os from 'node:os'
import { findLocalServer } from './host-server.js'
import { round } from '../helpers/numbers.js'

// The machine's CPU time since the last call, from /proc/stat: how busy
// it was, and how much of it waited for I/O or was taken by the hypervisor;
// and who used it, from /proc/<pid>/stat: the generator itself, the local
// server's processes (found from the generator's own connections,
// host-server.js) and the busiest other processes. A recorded run keeps it
// in each sample, so that a change the server does not explain can be laid
// at the machine's door (lib/analysis/lab-observers.js,
// lib/analysis/cause-cpu.js). Elsewhere than Linux it is null.

/**
 * A process's share of the second, in percent of one core; processes of the
 * same name and parent (a tool's workers, a test runner's children) as one
 * line, `n` of them, named by the busiest.
 * @typedef {object} ProcessCpu
 * @property {number} pid
 * @property {string} name
 * @property {number} pct
 * @property {number} [n]
 * @property {number} [ppid]
 */

/**
 * One second of the machine, as a sample keeps it. Shares of the machine's
 * time are in percent of all its cores; the processes' in percent of one
 * core (100 = a whole core).
 * @typedef {object} HostFigures
 * @property {number} busy_pct
 * @property {number} iowait_pct
 * @property {number} steal_pct
 * @property {number} [cores]
 * @property {number} [own_pct]          the generator's process (all its threads)
 * @property {number | null} [server_pct]   the local server's processes; null when it was not found locally
 * @property {number | null} [server_pid]   its postmaster
 * @property {number} [server_stopped]   how many of its processes were stopped (state T: SIGSTOP)
 * @property {number} [server_procs]
 * @property {number} [others_pct]       every other process
 * @property {ProcessCpu[]} [top]        the busiest other processes (or groups), at most TOP
 * @property {number | null} [wait_pct]  how long the generator's threads and the server's processes waited for a
 *   CPU while runnable (/proc/<pid>/schedstat), in percent of one core; null without schedstat
 */

const STAT = '/proc/stat'
const TOP = 8
// a process below this share of a core is not worth a line
const TOP_MIN_PCT = 5
// looking for the server costs a scan of every process's descriptors: at most this often
const FIND_EVERY_MS = 5000
const TICKS = 100

export class HostCpu {
  constructor() {
    /** @type {number[] | null} */
    this.last = read()
    this.lastMs = Date.now()
    this.lastCpu = process.cpuUsage()
    /** @type {Map<number, number>} */
    this.lastTicks = new Map()
    /** @type {Map<string, number>} run-queue waits so far, by /proc path */
    this.lastWaits = new Map()
    this.lastUptime = uptime()
    /** @type {number | null} */
    this.server = null
    this.lookedAt = 0
    this.processes()
  }

  /**
   * Shares of the CPU time since the last call, in percent; null when
   * /proc/stat cannot be read.
   * @returns {HostFigures | null}
   */
  sample() {
    const now = read()
    const last = this.last
    this.last = now
    const ms = Date.now()
    const seconds = Math.max(0.001, (ms - this.lastMs) / 1000)
    this.lastMs = ms
    const cpu = process.cpuUsage()
    const own = ((cpu.user - this.lastCpu.user + cpu.system - this.lastCpu.system) / 1e6 / seconds) * 100
    this.lastCpu = cpu
    const processes = this.processes(seconds)
    if (!now || !last) return null
    const delta = now.map((value, i) => value - (last[i] ?? 0))
    // user nice system idle iowait irq softirq steal
    const [user, nice, system, , iowait, irq, softirq, steal] = delta
    const total = delta.slice(0, 8).reduce((a, b) => a + b, 0)
    if (!(total > 0)) return null
    const pct = (/** @type {number} */ ticks) => Math.round((1000 * ticks) / total) / 10
    return {
      busy_pct: pct(user + nice + system + irq + softirq + steal),
      iowait_pct: pct(iowait),
      steal_pct: pct(steal),
      cores: os.availableParallelism(),
      own_pct: round(own, 1),
      ...processes
    }
  }

  /**
   * Who used the CPU since the last call: the server's processes and the others.
   * @param {number} [seconds]
   */
  processes(seconds = 1) {
    const list = readProcesses()
    if (list.length === 0) return {}
    this.findServer(list)
    const bootS = uptime()
    const ticks = new Map()
    let serverPct = 0
    let othersPct = 0
    let stopped = 0
    let serverProcs = 0
    /** @type {Map<string, ProcessCpu & { best: number }>} */
    const others = new Map()
    for (const p of list) {
      ticks.set(p.pid, p.ticks)
      const before = this.lastTicks.get(p.pid)
      // a process born since the last call used all its time in the interval
      const used = before !== undefined ? p.ticks - before : p.startS >= this.lastUptime ? p.ticks : 0
      const share = (Math.max(0, used) / TICKS / seconds) * 100
      const ofServer = this.server !== null && (p.pid === this.server || p.ppid === this.server)
      if (ofServer) {
        serverProcs++
        serverPct += share
        if (p.state === 'T' || p.state === 't') stopped++
      } else if (p.pid !== process.pid) {
        othersPct += share
        const key = `${p.ppid}/${p.name}`
        const group = others.get(key) ?? { pid: p.pid, name: p.name, pct: 0, n: 0, ppid: p.ppid, best: -1 }
        group.n = (group.n ?? 0) + 1
        group.pct += share
        if (share > group.best) Object.assign(group, { pid: p.pid, best: share })
        others.set(key, group)
      }
    }
    this.lastTicks = ticks
    this.lastUptime = bootS
    const ours = list.filter(p => this.server !== null && (p.pid === this.server || p.ppid === this.server))
    return {
      wait_pct: this.waits(
        ours.map(p => p.pid),
        seconds
      ),
      server_pct: this.server === null ? null : round(serverPct, 1),
      server_pid: this.server,
      server_stopped: stopped,
      server_procs: serverProcs,
      others_pct: round(othersPct, 1),
      top: [...others.values()]
        .filter(g => g.pct >= TOP_MIN_PCT)
        .sort((a, b) => b.pct - a.pct)
        .slice(0, TOP)
        .map(({ pid, name, pct, n, ppid }) => ({ pid, ppid, name, pct: round(pct, 1), ...(n !== 1 && { n }) }))
    }
  }

  /**
   * How long the generator's threads and the given processes waited for a
   * CPU since the last call, in percent of one core.
   * @param {number[]} pids @param {number} seconds
   */
  waits(pids, seconds) {
    /** @type {string[]} */
    const files = []
    try {
      for (const task of readdirSync('/proc/self/task')) files.push(`/proc/self/task/${task}/schedstat`)
    } catch {
      return null
    }
    for (const pid of pids) files.push(`/proc/${pid}/schedstat`)
    const now = new Map()
    let waited = 0
    for (const file of files) {
      let ns
      try {
        ns = Number(readFileSync(file, 'utf8').split(' ')[1])
      } catch {
        continue
      }
      if (!Number.isFinite(ns)) continue
      now.set(file, ns)
      const before = this.lastWaits.get(file)
      if (before !== undefined) waited += Math.max(0, ns - before)
    }
    const first = this.lastWaits.size === 0
    this.lastWaits = now
    if (now.size === 0 || first) return null
    return round((waited / 1e9 / seconds) * 100, 1)
  }

  /**
   * The local server's postmaster, once found; looked for again when it is gone.
   * @param {Array<{ pid: number }>} list
   */
  findServer(list) {
    if (this.server !== null && list.some(p => p.pid === this.server)) return
    this.server = null
    if (Date.now() - this.lookedAt < FIND_EVERY_MS) return
    this.lookedAt = Date.now()
    this.server = findLocalServer(list.map(p => p.pid))
  }
}

/**
 * Every process's CPU ticks so far, state, parent and name.
 * @returns {Array<{ pid: number, ppid: number, name: string, state: string, ticks: number, startS: number }>}
 */
function readProcesses() {
  /** @type {string[]} */
  let names
  try {
    names = readdirSync('/proc').filter(n => /^\d+$/.test(n))
  } catch {
    return []
  }
  const out = []
  for (const n of names) {
    let text
    try {
      text = readFileSync(`/proc/${n}/stat`, 'utf8')
    } catch {
      continue
    }
    const parsed = parseProcStat(text)
    if (parsed) out.push(parsed)
  }
  return out
}

/**
 * A line of /proc/<pid>/stat: "pid (name) state ppid … utime stime … starttime …"
 * @param {string} text
 */
export function parseProcStat(text) {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return null
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/)
  // fields[0] is the 3rd field of the line (state)
  const pid = Number(text.slice(0, open).trim())
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  const start = Number(fields[19])
  if (!Number.isFinite(pid) || !Number.isFinite(utime) || !Number.isFinite(stime)) return null
  return {
    pid,
    ppid: Number(fields[1]),
    name: text.slice(open + 1, close),
    state: fields[0],
    ticks: utime + stime,
    startS: start / TICKS
  }
}

/** The first line of /proc/stat as numbers, or null. */
function read() {
  try {
    const line = readFileSync(STAT, 'utf8').split('\n', 1)[0]
    if (!line.startsWith('cpu ')) return null
    return line.trim().split(/\s+/).slice(1).map(Number)
  } catch {
    return null
  }
}

/** Seconds since the machine booted, or 0. */
function uptime() {
  try {
    return Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) || 0
  } catch {
    return 0
  }
}
