import { realpath } from 'node:fs/promises'
import { RuntimeError, InputError } from '../errors.js'
import { runTool } from './run-tool.js'

export const LAB_PROPERTY = 'pgloadgen:lab'
const PREFIX = 'pgloadgen-'

// Snapshots of the ZFS dataset that holds the data directory. A ZFS snapshot
// is atomic, so it is taken with the server running (what it captures is
// crash-consistent, and PostgreSQL recovers from it like from a crash).
// The driver refuses datasets not marked as the lab's by `snapshot init`.
export class ZfsDriver {
  /**
   * @param {string} dataDir
   * @param {string | null} dataset  found from the data directory when null
   */
  constructor(dataDir, dataset) {
    this.kind = 'zfs'
    this.dataDir = dataDir
    this.givenDataset = dataset
    /** @type {string | null} */
    this.dataset = null
    this.needsStoppedServer = false
  }

  async resolveDataset() {
    if (this.dataset) return this.dataset
    if (this.givenDataset) {
      await runTool('zfs', ['list', '-H', '-o', 'name', this.givenDataset])
      this.dataset = this.givenDataset
      return this.dataset
    }
    const dir = await realpath(this.dataDir)
    const rows = (await runTool('zfs', ['list', '-H', '-o', 'name,mountpoint', '-t', 'filesystem'])).trim().split('\n')
    let best = null
    let bestLength = -1
    for (const row of rows) {
      const [name, mountpoint] = row.split('\t')
      if (!mountpoint?.startsWith('/')) continue
      const prefix = mountpoint.endsWith('/') ? mountpoint : `${mountpoint}/`
      if ((dir === mountpoint || dir.startsWith(prefix)) && mountpoint.length > bestLength) {
        best = name
        bestLength = mountpoint.length
      }
    }
    if (!best) {
      throw new InputError(`the data directory ${this.dataDir} is not on a ZFS dataset (give --dataset)`, {
        code: 'PGLG_INVALID_SNAPSHOT'
      })
    }
    this.dataset = best
    return best
  }

  /** Marks the dataset as the lab's: the only kind this driver touches. */
  async init() {
    const dataset = await this.resolveDataset()
    await runTool('zfs', ['set', `${LAB_PROPERTY}=on`, dataset])
  }

  async assertMarked() {
    const dataset = await this.resolveDataset()
    const value = (await runTool('zfs', ['get', '-H', '-o', 'value', LAB_PROPERTY, dataset])).trim()
    if (value !== 'on') {
      throw new RuntimeError(
        `refusing to touch ZFS dataset ${dataset}: it is not marked as the lab's (run pgloadgen snapshot init --driver zfs --dataset ${dataset})`,
        { code: 'PGLG_SNAPSHOT_FAILED' }
      )
    }
    return dataset
  }

  /** @param {string} name */
  async snapshotName(name) {
    return `${await this.assertMarked()}@${PREFIX}${name}`
  }

  /** @param {string} name */
  async exists(name) {
    return (await this.list()).some(s => s.name === name)
  }

  /** @param {string} name */
  async create(name) {
    if (await this.exists(name)) {
      throw new InputError(`snapshot "${name}" already exists`, { code: 'PGLG_INVALID_SNAPSHOT' })
    }
    await runTool('zfs', ['snapshot', await this.snapshotName(name)])
  }

  async list() {
    const dataset = await this.assertMarked()
    // zfs-fuse's `zfs list` has no -p (exact numbers); `zfs get -p` works
    // everywhere. Depth 1 is the dataset, its snapshots and its children;
    // snapshots are ordered by the transaction group that created them
    // (creation has a resolution of one second).
    const out = await runTool('zfs', [
      'get',
      '-H',
      '-p',
      '-d',
      '1',
      '-o',
      'name,property,value',
      'createtxg,creation,used',
      dataset
    ])
    /** @type {Map<string, Record<string, number>>} */
    const snapshots = new Map()
    for (const row of out.trim().split('\n').filter(Boolean)) {
      const [full, property, value] = row.split('\t')
      if (!full.startsWith(`${dataset}@${PREFIX}`)) continue
      const properties = snapshots.get(full) ?? {}
      properties[property] = Number(value)
      snapshots.set(full, properties)
    }
    return [...snapshots]
      .sort(([, a], [, b]) => a.createtxg - b.createtxg)
      .map(([full, p]) => ({
        name: full.slice(`${dataset}@${PREFIX}`.length),
        created: new Date(p.creation * 1000).toISOString(),
        bytes: p.used
      }))
  }

  /**
   * Rolls the dataset back; later snapshots are destroyed with it (zfs
   * rollback -r), which the caller has been told about.
   * @param {string} name
   */
  async rollback(name) {
    await runTool('zfs', ['rollback', '-r', await this.snapshotName(name)])
    return async () => {}
  }

  /**
   * Snapshots newer than name: a rollback to name destroys them.
   * @param {string} name
   */
  async newerThan(name) {
    const all = await this.list()
    const index = all.findIndex(s => s.name === name)
    return index === -1 ? [] : all.slice(index + 1).map(s => s.name)
  }

  /** @param {string} name */
  async destroy(name) {
    await runTool('zfs', ['destroy', await this.snapshotName(name)])
  }
}
