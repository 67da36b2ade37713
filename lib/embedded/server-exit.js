import { open, readFile, readdir, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { LOG_FILE } from './server.js'

// What a data directory says about how its server stopped: whether it shut
// down cleanly (pg_control's state), and why it stopped when it did not
// (the last PANIC or FATAL of its log), with the size of its WAL segments
// for the room crash recovery needs.

// pg_control begins with the system identifier (8 bytes), the control file's
// version and the catalog version (4 each); the cluster's state follows, an
// enum in the machine's byte order. The same in every major since 9.0.
const STATE_OFFSET = 16
// DB_SHUTDOWNED and DB_SHUTDOWNED_IN_RECOVERY: a shutdown that finished
const SHUT_DOWN_STATES = new Set([1, 2])
const DEFAULT_SEGMENT_BYTES = 16 * 1024 * 1024
const SEGMENT_NAME = /^[0-9A-F]{24}$/

// FATAL lines that say nothing of why the server stopped: a client turned
// away while it stopped or recovered, or cut off by the stop.
const CLIENT_FATAL =
  /FATAL: +(the database system is (starting up|shutting down|in recovery mode|not (yet )?accepting connections)|terminating connection )/

/**
 * Whether the server of dataDir last shut down cleanly (pg_ctl stop, a
 * snapshot), rather than crashing or failing its crash recovery. Null when
 * pg_control cannot be read.
 * @param {string} dataDir
 * @returns {Promise<boolean | null>}
 */
export async function stoppedCleanly(dataDir) {
  let file
  try {
    file = await open(path.join(dataDir, 'global', 'pg_control'), 'r')
    const { buffer, bytesRead } = await file.read(Buffer.alloc(4), 0, 4, STATE_OFFSET)
    if (bytesRead < 4) return null
    const state = os.endianness() === 'LE' ? buffer.readUInt32LE(0) : buffer.readUInt32BE(0)
    return SHUT_DOWN_STATES.has(state)
  } catch {
    return null
  } finally {
    await file?.close()
  }
}

/**
 * The size of the server's log now: where the lines written from now on begin.
 * @param {string} dataDir
 */
export async function serverLogSize(dataDir) {
  try {
    return (await stat(path.join(dataDir, LOG_FILE))).size
  } catch {
    return 0
  }
}

/**
 * Why the server stopped, from its log after `from` (a serverLogSize): the
 * last PANIC or FATAL line about the server itself, from its severity on
 * (`PANIC:  could not write to file "pg_wal/xlogtemp.N": Disk quota
 * exceeded`). Null when there is none (a postmaster killed outright logs
 * nothing), when the log is shorter than `from` (not the log marked: the
 * data directory was replaced, by a snapshot's rollback say), or when it
 * cannot be read.
 * @param {string} dataDir
 * @param {number} from
 * @returns {Promise<string | null>}
 */
export async function exitCause(dataDir, from) {
  let text
  try {
    text = await readFile(path.join(dataDir, LOG_FILE))
  } catch {
    return null
  }
  return from > text.length ? null : lastServerFailure(text.subarray(from).toString('utf8'))
}

/**
 * The last PANIC or FATAL line of a stretch of server log that is about the
 * server, from its severity on; null when none.
 * @param {string} text
 * @returns {string | null}
 */
export function lastServerFailure(text) {
  const lines = text.split('\n')
  for (let i = lines.length - 1; i >= 0; i--) {
    const at = lines[i].search(/\b(PANIC|FATAL): /)
    if (at >= 0 && !CLIENT_FATAL.test(lines[i])) return lines[i].slice(at).trim()
  }
  return null
}

/**
 * The size of one WAL segment of the data directory (initdb
 * --wal-segsize), from a segment file in pg_wal; 16 MiB when none is found.
 * @param {string} dataDir
 */
export async function walSegmentBytes(dataDir) {
  const walDir = path.join(dataDir, 'pg_wal')
  try {
    const segment = (await readdir(walDir)).find(name => SEGMENT_NAME.test(name))
    if (segment) return (await stat(path.join(walDir, segment))).size
  } catch {
    // no pg_wal to read: the default
  }
  return DEFAULT_SEGMENT_BYTES
}
