import { execFile } from 'node:child_process'
import { open, readFile, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { closeControlClient, openControlClient } from '../pg/control-client.js'
import { InputError, MissingToolError, RuntimeError } from '../errors.js'
import { errorMessage } from '../helpers/error-message.js'
import { quoteTable } from '../helpers/table-name.js'

// evict-cache: drops a table's files (its heap, its indexes, its TOAST
// table and the TOAST index, every segment and fork; the partitions of a
// partitioned table) from the kernel's page cache, so that the action after
// it (a vacuum) reads them from disk, as on a server whose data outgrew its
// memory. For servers without direct I/O (PostgreSQL 15; 16+ have
// debug_io_direct, see the io-bound profile).
//
// The files are found from the server (SHOW data_directory,
// pg_relation_filepath) and must be on this machine: the server's data
// directory is read here, and it must be that server's (the system
// identifier in global/pg_control and the port in postmaster.pid match what
// the server says), or the action is refused. Dirty pages cannot be
// dropped, so each file is first written back (fdatasync, which a
// checkpoint would do anyway; the server's data is not changed). Then
// vmtouch -e (Debian package vmtouch) asks the kernel to drop the pages
// (posix_fadvise POSIX_FADV_DONTNEED, which Node cannot call itself), and
// vmtouch (mincore) counts the pages resident before and after.

export const EVICT_TOOL = 'vmtouch'
// Arguments per vmtouch run: far under the kernel's limit on a command line.
const FILES_PER_RUN = 500
const FORKS = ['', '_fsm', '_vm', '_init']

/**
 * @typedef {object} RelationFile
 * @property {string} relation   as regclass prints it
 * @property {'table' | 'index' | 'toast' | 'toast index'} kind
 * @property {string} file       absolute path on this machine
 * @property {number} bytes
 */

/**
 * @typedef {object} EvictResult
 * @property {string} data_directory
 * @property {number} relations       relations with storage (table, partitions, indexes, TOAST)
 * @property {number} files           segments and forks
 * @property {number} bytes           their size
 * @property {number} page_size       the kernel's page size, the unit of the counts below
 * @property {number} resident_pages_before
 * @property {number} resident_pages_after
 * @property {number} total_pages
 */

// The relations of a table whose pages a scan or a vacuum of it reads: the
// table and, for a partitioned one, every partition (pg_partition_tree
// gives nothing for a plain table), their TOAST tables, and the indexes of
// all of them. Those without storage (partitioned parents) have no file path.
const RELATIONS_SQL = `WITH tree AS (
  SELECT $1::regclass AS relid UNION SELECT relid FROM pg_partition_tree($1::regclass)
),
heaps AS (
  SELECT c.oid, 'table' AS kind FROM pg_class c JOIN tree ON c.oid = tree.relid
  UNION ALL
  SELECT c.reltoastrelid, 'toast' FROM pg_class c JOIN tree ON c.oid = tree.relid WHERE c.reltoastrelid <> 0
),
rels AS (
  SELECT oid, kind FROM heaps
  UNION ALL
  SELECT i.indexrelid, CASE h.kind WHEN 'toast' THEN 'toast index' ELSE 'index' END
  FROM pg_index i JOIN heaps h ON i.indrelid = h.oid
)
SELECT r.oid::regclass::text AS relation, r.kind, pg_relation_filepath(r.oid) AS path
FROM rels r WHERE pg_relation_filepath(r.oid) IS NOT NULL ORDER BY r.kind DESC, 1`

/**
 * The server's data directory, checked to be on this machine, readable, and
 * that very server's; a refusal is an InputError of one line.
 * @param {import('pg').Client} client
 * @returns {Promise<string>}
 */
export async function localDataDirectory(client) {
  const { rows } = await client.query(
    "SELECT current_setting('data_directory') AS dir, current_setting('port') AS port, (SELECT system_identifier::text FROM pg_control_system()) AS sysid"
  )
  const { dir, port, sysid } = rows[0]
  const why = "evict-cache drops a local server's files from this machine's page cache"
  let control
  try {
    control = await readFile(path.join(dir, 'global', 'pg_control'))
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new InputError(`the server's data directory ${dir} is not on this machine (a remote server?): ${why}`, {
        code: 'PGLG_UNFIT_SERVER',
        cause: err
      })
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new InputError(
        `cannot read the server's data directory ${dir} as ${os.userInfo().username}: run as root or as the server's user (${why})`,
        { code: 'PGLG_UNREADABLE_FILE', cause: err }
      )
    }
    throw new InputError(`cannot read the server's data directory ${dir}: ${errorMessage(err)}`, {
      code: 'PGLG_UNREADABLE_FILE',
      cause: err
    })
  }
  // ControlFileData starts with the cluster's system identifier (uint64, native byte order).
  const here =
    control.length >= 8
      ? (os.endianness() === 'LE' ? control.readBigUInt64LE(0) : control.readBigUInt64BE(0)).toString()
      : ''
  let pidPort = ''
  try {
    pidPort = (await readFile(path.join(dir, 'postmaster.pid'), 'utf8')).split('\n')[3]?.trim() ?? ''
  } catch {
    // no postmaster.pid: no server runs on this directory here
  }
  if (here !== sysid || pidPort !== String(port)) {
    throw new InputError(
      `the data directory ${dir} on this machine is not the server's (${here !== sysid ? 'another system identifier' : 'no server on its port runs there'}): a remote server? ${why}`,
      { code: 'PGLG_UNFIT_SERVER' }
    )
  }
  return dir
}

/**
 * Every file of the table's relations: each segment (relfilenode,
 * relfilenode.1, …) of each fork (main, _fsm, _vm, _init).
 * @param {import('pg').Client} client
 * @param {string} table
 * @param {string} dataDir
 * @returns {Promise<{ relations: number, files: RelationFile[] }>}
 */
export async function relationFiles(client, table, dataDir) {
  const { rows } = await client.query(RELATIONS_SQL, [quoteTable(table)])
  /** @type {RelationFile[]} */
  const files = []
  for (const row of rows) {
    const base = path.resolve(dataDir, row.path)
    for (const fork of FORKS) {
      for (let segment = 0; ; segment++) {
        const file = `${base}${fork}${segment === 0 ? '' : `.${segment}`}`
        let info
        try {
          info = await stat(file)
        } catch (err) {
          if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') break
          throw err
        }
        files.push({ relation: row.relation, kind: row.kind, file, bytes: info.size })
      }
    }
  }
  return { relations: rows.length, files }
}

/**
 * Runs vmtouch with the options on the files, a few hundred at a time, and
 * sums the resident (or evicted) pages it reports.
 * @param {string[]} options
 * @param {string[]} files
 * @returns {Promise<{ resident: number, total: number }>}
 */
async function vmtouch(options, files) {
  let resident = 0
  let total = 0
  for (let i = 0; i < files.length; i += FILES_PER_RUN) {
    const out = await run(EVICT_TOOL, [...options, ...files.slice(i, i + FILES_PER_RUN)])
    const counts = /Resident Pages: (\d+)\/(\d+)/.exec(out)
    if (counts) {
      resident += Number(counts[1])
      total += Number(counts[2])
    } else if (!/Evicted Pages: \d+/.test(out)) {
      throw new RuntimeError(`${EVICT_TOOL} printed nothing it should: ${out.trim().split('\n')[0] ?? ''}`, {
        code: 'PGLG_TOOL_FAILED'
      })
    }
  }
  return { resident, total }
}

/**
 * @param {string} command
 * @param {string[]} args
 * @returns {Promise<string>} its stdout
 */
function run(command, args) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err && /** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') {
        reject(
          new MissingToolError(
            `evict-cache needs ${command}, which is not installed (Debian package ${command}: apt-get install ${command})`,
            { cause: err }
          )
        )
      } else if (err) {
        const said = (stderr || err.message).trim().split('\n')[0]
        reject(new RuntimeError(`${command} failed: ${said}`, { code: 'PGLG_TOOL_FAILED', cause: err }))
      } else {
        resolve(stdout)
      }
    })
  })
}

/** @type {number | null} */
let pageSize = null
/** The kernel's page size, vmtouch's unit. */
async function kernelPageSize() {
  if (pageSize === null) {
    const size = Number((await run('getconf', ['PAGESIZE']).catch(() => '')).trim())
    pageSize = Number.isInteger(size) && size > 0 ? size : 4096
  }
  return pageSize
}

/**
 * Checks, before anything is recorded, that evict-cache can work against
 * this server from here: vmtouch is installed and the data directory is
 * local and readable: a MissingToolError without vmtouch, an InputError
 * when the server's files cannot be found (one line; exit 1 and 2 for the CLI).
 * @param {string} connectionString
 */
export async function checkEvictable(connectionString) {
  await run(EVICT_TOOL, ['-q', '/dev/null'])
  /** @type {import('pg').Client | null} */
  let client = null
  try {
    try {
      client = await openControlClient({ connectionString, applicationName: 'pgloadgen-sidecar' })
    } catch {
      return // the action fails on its own, with its events, as any action would
    }
    await localDataDirectory(client)
  } catch (err) {
    // SHOW data_directory needs a superuser or pg_read_all_settings
    if (/** @type {{ code?: string }} */ (err).code === '42501') {
      throw new InputError(`evict-cache cannot find the server's files: ${errorMessage(err)}`, {
        code: 'PGLG_UNFIT_SERVER',
        cause: err
      })
    }
    if (err instanceof InputError) throw err
    // anything else fails the action itself, recorded as such
  } finally {
    await closeControlClient(client)
  }
}

/**
 * Drops the table's files from the page cache, on a connection of its own.
 * @param {import('pg').Client} client
 * @param {string} table
 * @returns {Promise<EvictResult>}
 */
export async function evictTable(client, table) {
  const dataDir = await localDataDirectory(client)
  const { relations, files } = await relationFiles(client, table, dataDir)
  const paths = files.map(f => f.file)
  const before = await vmtouch([], paths)
  // Dirty pages stay in the cache: write them back first.
  for (const file of paths) {
    let handle
    try {
      handle = await open(file, 'r')
      await handle.datasync()
    } catch (err) {
      // a segment truncated away meanwhile (a vacuum's truncation) is gone anyway
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') throw err
    } finally {
      await handle?.close()
    }
  }
  await vmtouch(['-e'], paths)
  const after = await vmtouch([], paths)
  return {
    data_directory: dataDir,
    relations,
    files: files.length,
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    page_size: await kernelPageSize(),
    resident_pages_before: before.resident,
    resident_pages_after: after.resident,
    total_pages: after.total
  }
}

/**
 * The evict-cache action: start and end events like every action's, the
 * end carrying what was evicted; a refusal or failure is a failed action.
 * @param {import('./action-contract.js').ActionSpec} spec
 * @param {import('./action-contract.js').ActionContext} context
 * @returns {Promise<import('./action-contract.js').ActionOutcome>}
 */
export async function runEvictCache(spec, context) {
  const { connectionString, events, log } = context
  const table = /** @type {string} */ (spec.table)
  const base = { action: 'evict-cache', table }
  /** @type {import('pg').Client | null} */
  let client = null
  const started = performance.now()
  const took = () => Math.round(performance.now() - started) / 1000
  try {
    client = await openControlClient({ connectionString, applicationName: 'pgloadgen-sidecar', log })
    await events.record({ kind: 'start', ...base, detail: { tool: EVICT_TOOL } })
    log.info(`evict-cache of ${table} started`)
    const detail = await evictTable(client, table)
    const duration = took()
    await events.record({ kind: 'end', ...base, duration_s: duration, ok: true, detail: { ...detail } })
    log.info(
      `evict-cache of ${table}: ${detail.files} files of ${detail.relations} relations, ${mb(detail.bytes)}; resident ${mb(detail.resident_pages_before * detail.page_size)} before, ${mb(detail.resident_pages_after * detail.page_size)} after (${duration.toFixed(2)} s)`
    )
    return { ok: true, duration_s: duration, detail: { ...detail } }
  } catch (err) {
    const duration = took()
    const message = errorMessage(err)
    await events.record({ kind: 'end', ...base, duration_s: duration, ok: false, error: message })
    log.warn(`evict-cache of ${table} failed after ${duration.toFixed(1)} s: ${message}`, 'PGLG_W_ACTION_FAILED')
    return { ok: false, duration_s: duration, error: message }
  } finally {
    await closeControlClient(client)
  }
}

/** @param {number} bytes */
function mb(bytes) {
  return `${(bytes / 1048576).toFixed(1)} MiB`
}
