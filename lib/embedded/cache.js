import { existsSync, readdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PACKAGE_VERSIONS } from './majors.js'

// Where fetched PostgreSQL binaries live: one directory per package version
// under a per-user cache, shared by every checkout of the lab. Root's cache
// is /var/cache/pgloadgen rather than ~/.cache: as root the server runs as
// the postgres user, which cannot enter root's private home to execute the
// binaries. PGLOADGEN_CACHE chooses another place.

/** @returns {string} */
export function cacheRoot() {
  if (process.env.PGLOADGEN_CACHE) return path.resolve(process.env.PGLOADGEN_CACHE)
  if (os.userInfo().uid === 0) return '/var/cache/pgloadgen'
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  return path.join(base, 'pgloadgen')
}

export const platformKey = () => `${os.platform()}-${os.arch()}`

/**
 * The directory a major's package is (or would be) unpacked in.
 * @param {number} major
 */
export function majorDir(major) {
  return path.join(cacheRoot(), 'postgres', platformKey(), PACKAGE_VERSIONS[major])
}

/**
 * The server binaries of an unpacked package directory.
 * @param {string} dir
 */
export function binariesIn(dir) {
  const bin = path.join(dir, 'native', 'bin')
  return { postgres: path.join(bin, 'postgres'), initdb: path.join(bin, 'initdb'), pg_ctl: path.join(bin, 'pg_ctl') }
}

/** @param {number} major */
export function isCached(major) {
  return existsSync(binariesIn(majorDir(major)).postgres)
}

/**
 * Package versions in the cache that no pinned major names any more (left
 * by an older pgloadgen), for `server list`.
 * @returns {string[]}
 */
export function strayVersions() {
  const dir = path.join(cacheRoot(), 'postgres', platformKey())
  const pinned = new Set(Object.values(PACKAGE_VERSIONS))
  try {
    return readdirSync(dir).filter(name => !pinned.has(name) && !name.startsWith('.'))
  } catch {
    return []
  }
}
