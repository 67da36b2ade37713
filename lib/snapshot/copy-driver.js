import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { InputError, RuntimeError } from '../errors.js'
import { runTool } from './run-tool.js'

// Snapshots as copies of the data directory, kept beside it in
// <data-dir>.snapshots/<name>/data. Copies are reflinks where the filesystem
// supports them. The server must be stopped while a copy is taken.
export class CopyDriver {
  /** @param {string} dataDir */
  constructor(dataDir) {
    this.kind = 'copy'
    this.dataDir = dataDir
    this.root = `${dataDir}.snapshots`
    // A copy is consistent only while the server is down.
    this.needsStoppedServer = true
  }

  /** @param {string} name */
  dir(name) {
    return path.join(this.root, name)
  }

  async init() {
    await mkdir(this.root, { recursive: true })
  }

  /** @param {string} name */
  async exists(name) {
    return existsSync(path.join(this.dir(name), 'data'))
  }

  /** @param {string} name */
  async create(name) {
    if (await this.exists(name)) {
      throw new InputError(`snapshot "${name}" already exists`, { code: 'PGLG_INVALID_SNAPSHOT' })
    }
    const dir = this.dir(name)
    await mkdir(dir, { recursive: true })
    try {
      await runTool('cp', ['-a', '--reflink=auto', this.dataDir, path.join(dir, 'data')])
    } catch (err) {
      await rm(dir, { recursive: true, force: true })
      throw err
    }
    await writeFile(path.join(dir, 'snapshot.json'), JSON.stringify({ name, created: new Date().toISOString() }) + '\n')
  }

  async list() {
    if (!existsSync(this.root)) return []
    const snapshots = []
    for (const name of (await readdir(this.root)).sort()) {
      const meta = path.join(this.dir(name), 'snapshot.json')
      if (!existsSync(meta)) continue
      const { created } = JSON.parse(await readFile(meta, 'utf8'))
      snapshots.push({ name, created, bytes: null })
    }
    return snapshots.sort((a, b) => a.created.localeCompare(b.created))
  }

  /**
   * Replaces the data directory with the snapshot's copy. The current
   * directory is moved aside first and put back if the copy fails, so a
   * failed rollback loses nothing.
   * @param {string} name
   */
  async rollback(name) {
    const aside = `${this.dataDir}.before-rollback`
    await rm(aside, { recursive: true, force: true })
    await rename(this.dataDir, aside)
    try {
      await runTool('cp', ['-a', '--reflink=auto', path.join(this.dir(name), 'data'), this.dataDir])
    } catch (err) {
      await rm(this.dataDir, { recursive: true, force: true })
      await rename(aside, this.dataDir)
      throw new RuntimeError(`rollback failed, data directory left as it was: ` + /** @type {Error} */ (err).message, {
        code: 'PGLG_SNAPSHOT_FAILED',
        cause: err
      })
    }
    return async () => {
      await rm(aside, { recursive: true, force: true })
    }
  }

  /** @param {string} name */
  async destroy(name) {
    await rm(this.dir(name), { recursive: true, force: true })
  }
}
