// The limit of a slower disk as a plan or --disk-limit gives it, parsed and
// said back; lib/lab/disk-throttle.js applies it.

import { InputError } from '../errors.js'
import { printable, quote, shown } from '../helpers/quote.js'

/**
 * @typedef {object} DiskLimit   null: not limited
 * @property {number | null} readBps
 * @property {number | null} readIops
 * @property {number | null} writeBps
 * @property {number | null} writeIops
 */

// The fields as a plan and --disk-limit name them; MB is 10^6 bytes.
const FIELDS = /** @type {const} */ ({
  read_mbps: 'readBps',
  read_iops: 'readIops',
  write_mbps: 'writeBps',
  write_iops: 'writeIops'
})
const MB = 1e6
// Far above any disk; a larger number is a typo (and would overflow the kernel's field for iops).
const MAX_MBPS = 1e6
const MAX_IOPS = 1e8

/**
 * A limit from a plan ({ read_mbps: 8, read_iops: 400 }) or a flag
 * ("read_mbps=8,read_iops=400"). One line per problem, naming the field.
 * @param {unknown} value
 * @param {string} field  server.disk_limit, --disk-limit
 * @returns {DiskLimit}
 */
export function parseDiskLimit(value, field) {
  /** @type {Record<string, unknown>} */
  let entries
  if (typeof value === 'string') {
    entries = {}
    for (const part of value.split(',')) {
      const match = /^\s*([a-z_]+)\s*=\s*(\S+)\s*$/.exec(part)
      if (!match) {
        throw new InputError(`${field}: expected key=value pairs like read_mbps=8,read_iops=400, got ${quote(value)}`, {
          code: 'PGLG_INVALID_VALUE'
        })
      }
      entries[match[1]] = match[2]
    }
  } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    entries = /** @type {Record<string, unknown>} */ (value)
  } else {
    throw new InputError(`${field}: expected an object like { read_mbps: 8, read_iops: 400 }, got ${shown(value)}`, {
      code: 'PGLG_INVALID_VALUE'
    })
  }
  /** @type {DiskLimit} */
  const limit = { readBps: null, readIops: null, writeBps: null, writeIops: null }
  for (const [key, raw] of Object.entries(entries)) {
    if (!Object.hasOwn(FIELDS, key)) {
      throw new InputError(`${field}.${printable(key, 40)}: unknown field (known: ${Object.keys(FIELDS).join(', ')})`, {
        code: 'PGLG_UNKNOWN_OPTION'
      })
    }
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN
    const name = /** @type {keyof typeof FIELDS} */ (key)
    if (name.endsWith('_mbps')) {
      // below 10 kB/s a single page would take most of a second
      if (!Number.isFinite(n) || n < 0.01 || n > MAX_MBPS) {
        throw new InputError(
          `${field}.${key}: megabytes (10^6 bytes) a second, from 0.01 to ${MAX_MBPS}, got ${shown(raw)}`,
          { code: 'PGLG_INVALID_NUMBER' }
        )
      }
      limit[FIELDS[name]] = Math.round(n * MB)
    } else {
      if (!Number.isInteger(n) || n < 1 || n > MAX_IOPS) {
        throw new InputError(
          `${field}.${key}: I/O operations a second, a whole number from 1 to ${MAX_IOPS}, got ${shown(raw)}`,
          { code: 'PGLG_INVALID_NUMBER' }
        )
      }
      limit[FIELDS[name]] = n
    }
  }
  if (Object.values(limit).every(v => v === null)) {
    throw new InputError(`${field}: give at least one of ${Object.keys(FIELDS).join(', ')}`, {
      code: 'PGLG_MISSING_VALUE'
    })
  }
  return limit
}

/** @param {DiskLimit} limit  @returns {string} "read 8 MB/s, 400 IOPS" */
export function describeDiskLimit(limit) {
  const side = (/** @type {string} */ name, /** @type {number | null} */ bps, /** @type {number | null} */ iops) =>
    bps === null && iops === null
      ? []
      : [`${name} ${[bps !== null && `${bps / MB} MB/s`, iops !== null && `${iops} IOPS`].filter(Boolean).join(', ')}`]
  return [...side('read', limit.readBps, limit.readIops), ...side('write', limit.writeBps, limit.writeIops)].join('; ')
}
