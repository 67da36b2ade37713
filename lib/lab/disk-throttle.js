// A slower disk for the embedded server: its postmaster and every process
// it has forked go into a cgroup whose block I/O to the data directory's
// disk is limited (blkio.throttle.* under cgroup v1, io.max under v2).
// Processes the postmaster forks later (backends, autovacuum workers)
// inherit the group. Direct I/O (the io-bound profile) sends the server's
// reads and writes of its data files to the device, where the limit holds;
// reads the kernel's page cache serves are not slowed, nor (under v1) the
// kernel's own writeback of buffered writes such as the WAL's.

import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, realpath, rmdir, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { InputError, RuntimeError } from '../errors.js'
import { describeDiskLimit } from './disk-limit.js'

/** @typedef {import('./disk-limit.js').DiskLimit} DiskLimit */

export { describeDiskLimit, parseDiskLimit } from './disk-limit.js'

const GROUP_PREFIX = 'pgloadgen-disk-'

/**
 * @typedef {object} Controller
 * @property {1 | 2} version
 * @property {string} mount    where the hierarchy is mounted
 * @property {string} parent   the cgroup directory the throttled group is made in
 */

/**
 * Everything a throttle needs, checked before anything starts: root, a
 * blkio (v1) or io (v2) controller, and a block device under the directory.
 * @param {string} dir  the data directory, or where it will be made
 * @returns {Promise<{ controller: Controller, device: string }>}
 */
export async function checkDiskThrottle(dir) {
  if (process.getuid?.() !== 0) {
    throw new InputError(
      'disk limit: needs root (it puts the server into a throttled cgroup); run as root or leave the disk limit out',
      { code: 'PGLG_UNFIT_SERVER' }
    )
  }
  const controller = await findController()
  if (!controller) {
    throw new InputError(
      'disk limit: this machine has no cgroup blkio (v1) or io (v2) controller to throttle the disk with; leave the disk limit out',
      { code: 'PGLG_UNFIT_SERVER' }
    )
  }
  return { controller, device: await blockDevice(dir) }
}

/** @returns {Promise<Controller | null>} */
async function findController() {
  const mounts = (await readFile('/proc/self/mountinfo', 'utf8')).split('\n').map(line => {
    const [before, after = ''] = line.split(' - ')
    const [type, , options = ''] = after.split(' ')
    return { point: unescapeMount(before.split(' ')[4] ?? ''), type, options: options.split(',') }
  })
  const v1 = mounts.find(m => m.type === 'cgroup' && m.options.includes('blkio'))
  if (v1) {
    // inside the group this process is in, as a container's delegation requires
    const own = /^\d+:[^:]*\bblkio\b[^:]*:(.*)$/m.exec(await readFile('/proc/self/cgroup', 'utf8'))?.[1] ?? '/'
    const parent = path.join(v1.point, own)
    if (existsSync(parent)) return { version: 1, mount: v1.point, parent }
  }
  // v2: at the root of the hierarchy, the only group that may both hold
  // processes and hand the io controller to its children
  const v2 = mounts.find(m => m.type === 'cgroup2')
  if (v2) {
    const controllers = await readFile(path.join(v2.point, 'cgroup.controllers'), 'utf8').catch(() => '')
    if (controllers.split(/\s+/).includes('io')) return { version: 2, mount: v2.point, parent: v2.point }
  }
  return null
}

/** @param {string} text  a mountinfo path, \040 for a space */
function unescapeMount(text) {
  return text.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8)))
}

/**
 * "major:minor" of the whole disk that holds dir (a partition's disk: the
 * kernel throttles disks, not partitions).
 * @param {string} dir
 */
async function blockDevice(dir) {
  let existing = path.resolve(dir)
  while (!existsSync(existing)) existing = path.dirname(existing)
  const dev = (await stat(existing, { bigint: true })).dev
  // glibc's encoding of dev_t
  const major = Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn))
  const minor = Number((dev & 0xffn) | ((dev >> 12n) & ~0xffn))
  const sys = `/sys/dev/block/${major}:${minor}`
  if (!existsSync(sys)) {
    throw new InputError(
      `disk limit: ${existing} is not on a block device (device ${major}:${minor}: tmpfs, overlay or a network filesystem?); put the data directory on a disk or leave the disk limit out`,
      { code: 'PGLG_UNFIT_SERVER' }
    )
  }
  const real = await realpath(sys)
  if (!existsSync(path.join(real, 'partition'))) return `${major}:${minor}`
  return (await readFile(path.join(path.dirname(real), 'dev'), 'utf8')).trim()
}

// One throttled cgroup for one data directory's server.
export class DiskThrottle {
  /**
   * Makes the group and sets its limits; attach() puts the server in.
   * @param {{ dataDir: string, limit: DiskLimit, log: import('../log.js').Logger }} options
   */
  static async create({ dataDir, limit, log }) {
    const { controller, device } = await checkDiskThrottle(dataDir)
    await removeStaleGroups(controller, log)
    const group = path.join(controller.parent, `${GROUP_PREFIX}${process.pid}-${++created}`)
    try {
      if (controller.version === 2) await writeFile(path.join(controller.parent, 'cgroup.subtree_control'), '+io')
      await mkdir(group)
      if (controller.version === 1) {
        const files = {
          readBps: 'read_bps_device',
          readIops: 'read_iops_device',
          writeBps: 'write_bps_device',
          writeIops: 'write_iops_device'
        }
        for (const [key, file] of Object.entries(files)) {
          const value = limit[/** @type {keyof DiskLimit} */ (key)]
          if (value !== null) await writeFile(path.join(group, `blkio.throttle.${file}`), `${device} ${value}`)
        }
      } else {
        const max = (/** @type {number | null} */ v) => (v === null ? 'max' : String(v))
        await writeFile(
          path.join(group, 'io.max'),
          `${device} rbps=${max(limit.readBps)} riops=${max(limit.readIops)} wbps=${max(limit.writeBps)} wiops=${max(limit.writeIops)}`
        )
      }
    } catch (err) {
      await rmdir(group).catch(() => {})
      throw new RuntimeError(`disk limit: cannot set up the cgroup ${group}: ` + /** @type {Error} */ (err).message, {
        code: 'PGLG_DISK_LIMIT_FAILED',
        cause: err
      })
    }
    log.info(
      `disk limit: the embedded server's I/O to device ${device} limited to ${describeDiskLimit(limit)} (cgroup v${controller.version} ${group})`
    )
    return new DiskThrottle({ dataDir: path.resolve(dataDir), controller, device, group, log })
  }

  /**
   * @param {{ dataDir: string, controller: Controller, device: string, group: string,
   *     log: import('../log.js').Logger }} options
   */
  constructor({ dataDir, controller, device, group, log }) {
    this.dataDir = dataDir
    this.controller = controller
    this.device = device
    this.group = group
    this.log = log
    /** where the server's processes were before: they go back there at release */
    this.home = /** @type {string | null} */ (null)
  }

  /**
   * Moves the running server (the postmaster in postmaster.pid, then every
   * process under it) into the group. Call it after every start of the
   * server: a restart (a snapshot's rollback) makes a new postmaster.
   * @returns {Promise<number>} processes moved
   */
  async attach() {
    const postmaster = Number(
      (await readFile(path.join(this.dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]
    )
    if (!(postmaster > 0)) {
      throw new RuntimeError(`disk limit: no server running on ${this.dataDir} to throttle`, {
        code: 'PGLG_DISK_LIMIT_FAILED'
      })
    }
    this.home ??= await this.groupOf(postmaster)
    // The postmaster first: what it forks from then on is born in the group;
    // what it forked before is found below.
    let moved = 0
    for (const pid of [postmaster, ...(await descendants(postmaster))]) if (await this.move(pid, this.group)) moved++
    if (moved === 0) {
      throw new RuntimeError(`disk limit: the server on ${this.dataDir} (pid ${postmaster}) is gone`, {
        code: 'PGLG_DISK_LIMIT_FAILED'
      })
    }
    return moved
  }

  /**
   * Puts whatever is still in the group back where the server was, and
   * removes the group. Safe to call twice.
   */
  async release() {
    if (!existsSync(this.group)) return
    const home = this.home ?? this.controller.parent
    // A process forking while it is moved can leave a child behind: a few rounds.
    for (let round = 0; round < 20; round++) {
      const pids = await readPids(path.join(this.group, 'cgroup.procs'))
      for (const pid of pids) await this.move(pid, home)
      try {
        await rmdir(this.group)
        return
      } catch (err) {
        if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EBUSY') throw err
        await new Promise(resolve => setTimeout(resolve, 50))
      }
    }
    this.log.warn(
      `disk limit: could not remove the cgroup ${this.group} (processes still in it)`,
      'PGLG_W_CLEANUP_FAILED'
    )
  }

  /**
   * What the group's processes read and wrote on the device since it was made.
   * @returns {Promise<{ readBytes: number, writeBytes: number, reads: number, writes: number }>}
   */
  async counters() {
    const totals = { readBytes: 0, writeBytes: 0, reads: 0, writes: 0 }
    if (this.controller.version === 1) {
      const read = async (/** @type {string} */ file) => {
        const text = await readFile(path.join(this.group, file), 'utf8')
        const n = (/** @type {string} */ op) =>
          Number(new RegExp(`^${this.device} ${op} (\\d+)$`, 'm').exec(text)?.[1] ?? 0)
        return [n('Read'), n('Write')]
      }
      ;[totals.readBytes, totals.writeBytes] = await read('blkio.throttle.io_service_bytes')
      ;[totals.reads, totals.writes] = await read('blkio.throttle.io_serviced')
    } else {
      const line =
        (await readFile(path.join(this.group, 'io.stat'), 'utf8'))
          .split('\n')
          .find(l => l.startsWith(`${this.device} `)) ?? ''
      const field = (/** @type {string} */ name) => Number(new RegExp(`\\b${name}=(\\d+)`).exec(line)?.[1] ?? 0)
      Object.assign(totals, {
        readBytes: field('rbytes'),
        writeBytes: field('wbytes'),
        reads: field('rios'),
        writes: field('wios')
      })
    }
    return totals
  }

  /** @param {number} pid  @returns {Promise<string>} the process's group for this controller */
  async groupOf(pid) {
    const text = await readFile(`/proc/${pid}/cgroup`, 'utf8')
    const pattern = this.controller.version === 1 ? /^\d+:[^:]*\bblkio\b[^:]*:(.*)$/m : /^0::(.*)$/m
    return path.join(this.controller.mount, pattern.exec(text)?.[1] ?? '/')
  }

  /** @param {number} pid  @param {string} group  @returns {Promise<boolean>} false: the process had ended */
  async move(pid, group) {
    try {
      await writeFile(path.join(group, 'cgroup.procs'), String(pid))
      return true
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ESRCH') return false
      throw new RuntimeError(
        `disk limit: cannot move process ${pid} into ${group}: ` + /** @type {Error} */ (err).message,
        { code: 'PGLG_DISK_LIMIT_FAILED', cause: err }
      )
    }
  }
}

let created = 0

/** Every process under pid (PostgreSQL's are its children; deeper ones too). @param {number} pid */
async function descendants(pid) {
  const children = /** @type {Map<number, number[]>} */ (new Map())
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const text = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => null)
    // the command name in parentheses may hold spaces: the fields follow the last ")"
    const ppid = text === null ? NaN : Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1])
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)])
  }
  const found = []
  for (let queue = [pid]; queue.length > 0;) {
    const next = children.get(/** @type {number} */ (queue.shift())) ?? []
    found.push(...next)
    queue.push(...next)
  }
  return found
}

/** @param {string} file */
async function readPids(file) {
  return (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number)
}

/**
 * Groups left by a pgloadgen that died without releasing them: their
 * processes (a server still throttled) go back to the parent, the group goes.
 * @param {Controller} controller
 * @param {import('../log.js').Logger} log
 */
async function removeStaleGroups(controller, log) {
  for (const name of await readdir(controller.parent).catch(() => [])) {
    const owner = new RegExp(`^${GROUP_PREFIX}(\\d+)-\\d+$`).exec(name)?.[1]
    if (!owner || isAlive(Number(owner))) continue
    const group = path.join(controller.parent, name)
    for (const pid of await readPids(path.join(group, 'cgroup.procs'))) {
      await writeFile(path.join(controller.parent, 'cgroup.procs'), String(pid)).catch(() => {})
    }
    await rmdir(group).then(
      () => log.info(`disk limit: removed the cgroup ${group} left by an earlier run`),
      () => {}
    )
  }
}

/** @param {number} pid  @returns {boolean} */
function isAlive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM'
  }
}
