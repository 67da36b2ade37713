import { InputError } from '../../errors.js'
import { listPartitions, partitionedTableSql } from '../partitions.js'
import {
  CPU_COLUMNS_SQL,
  CPU_INDEXES_SQL,
  CPU_TABLE,
  NEWEST_SQL,
  PLAIN_CPU_SQL,
  RELKIND_SQL,
  SEED_TAGS_SQL,
  TAG_IDS_SQL
} from './schema.js'
import { CpuStream } from './stream.js'
import { TAG_COLUMNS, hostTags } from './tags.js'

// Once per run, after the schema (tsbs_tags): the cpu table in the shape
// the options ask for (plain, or partitioned by time), the hosts' tags, and
// the stream of rows all clients share, which goes on after the newest row
// already in the table so that no point is written twice.

const SETUP_LOCK_KEY = 0x74736263 // "tsbc": one generator at a time makes the tables

/**
 * @typedef {object} Shared
 * @property {CpuStream} stream
 * @property {number} clients   the clients the run starts with: each can hold a batch in flight and make its next
 */

/**
 * @param {import('../contract.js').SetupContext} context
 * @returns {Promise<Shared>}
 */
export async function setup({ sql, config, log, concurrency }) {
  const c = /** @type {import('./config.js').TsbsConfig} */ (config)
  let tagIds
  await sql('BEGIN')
  try {
    await sql('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK_KEY])
    await makeCpuTable(sql, c)
    tagIds = await seedHosts(sql, c.hosts)
    await sql('COMMIT')
  } catch (err) {
    await sql('ROLLBACK').catch(() => {})
    throw err
  }
  const newest = /** @type {number | null} */ ((await sql(NEWEST_SQL))[0]?.ms ?? null)
  const startMs = c.startMs ?? Math.floor(Date.now() / c.intervalMs) * c.intervalMs
  const firstEpoch = newest !== null && newest >= startMs ? Math.floor((newest - startMs) / c.intervalMs) + 1 : 0
  if (firstEpoch > 0) {
    log.info(
      `${CPU_TABLE} holds rows up to ${new Date(newest ?? 0).toISOString()}: the data goes on from ${new Date(startMs + firstEpoch * c.intervalMs).toISOString()}`
    )
  }
  const stream = new CpuStream({
    tagIds,
    intervalMs: c.intervalMs,
    startMs,
    firstEpoch,
    clock: c.clock,
    seed: c.seed,
    missing: c.missing,
    outOfOrder: c.outOfOrder
  })
  return { stream, clients: Math.max(1, concurrency) }
}

/**
 * @param {import('../contract.js').SetupContext['sql']} sql
 * @param {import('./config.js').TsbsConfig} c
 */
async function makeCpuTable(sql, c) {
  const partitioned = c.partitionIntervalS !== null
  const kind = (await sql(RELKIND_SQL))[0]?.relkind ?? null
  if (kind === null) {
    await sql(partitioned ? partitionedTableSql({ table: CPU_TABLE, columns: CPU_COLUMNS_SQL }) : PLAIN_CPU_SQL)
  } else if ((kind === 'p') !== partitioned) {
    throw new InputError(
      kind === 'p'
        ? `${CPU_TABLE} is partitioned (by an earlier run's --partition-interval): give --partition-interval, or --reset to make it plain`
        : `${CPU_TABLE} is a plain table: --partition-interval needs --reset to make it partitioned`,
      { code: 'PGLG_UNFIT_SERVER' }
    )
  } else if (partitioned) {
    const widthMs = /** @type {number} */ (c.partitionIntervalS) * 1000
    const odd = (await listPartitions(sql, CPU_TABLE)).find(p => p.to.getTime() - p.from.getTime() !== widthMs)
    if (odd) {
      throw new InputError(
        `${CPU_TABLE}'s partition ${odd.name} spans ${(odd.to.getTime() - odd.from.getTime()) / 1000}s, not --partition-interval ${c.partitionIntervalS}s: use the same interval, or --reset`,
        { code: 'PGLG_UNFIT_SERVER' }
      )
    }
  }
  for (const index of CPU_INDEXES_SQL) await sql(index)
}

/**
 * Inserts the hosts' tags where missing; returns the tags id of each host.
 * @param {import('../contract.js').SetupContext['sql']} sql
 * @param {number} hosts
 */
async function seedHosts(sql, hosts) {
  /** @type {string[][]} */
  const columns = TAG_COLUMNS.map(() => [])
  for (let n = 0; n < hosts; n++) {
    const tags = hostTags(n)
    for (let i = 0; i < tags.length; i++) columns[i].push(tags[i])
  }
  await sql(SEED_TAGS_SQL, columns)
  const tagIds = new Int32Array(hosts)
  for (const row of await sql(TAG_IDS_SQL, columns)) tagIds[Number(row.n) - 1] = Number(row.id)
  return tagIds
}
