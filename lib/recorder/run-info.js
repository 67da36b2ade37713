import { readFileSync } from 'node:fs'
import { writeFile, mkdir } from 'node:fs/promises'
import path from 'node:path'

export const PGLOADGEN_VERSION = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
).version

// The server settings that shape what a degradation experiment sees.
const SETTINGS = [
  'server_version',
  'shared_buffers',
  'work_mem',
  'maintenance_work_mem',
  'effective_cache_size',
  'wal_level',
  'synchronous_commit',
  'commit_delay',
  'checkpoint_timeout',
  'max_wal_size',
  'autovacuum',
  'autovacuum_naptime',
  'autovacuum_max_workers',
  'autovacuum_work_mem',
  'autovacuum_vacuum_threshold',
  'autovacuum_vacuum_scale_factor',
  'autovacuum_vacuum_cost_delay',
  'autovacuum_vacuum_cost_limit',
  'autovacuum_freeze_max_age',
  'vacuum_freeze_min_age',
  'vacuum_freeze_table_age',
  'vacuum_cost_delay',
  'vacuum_cost_limit',
  'max_connections',
  'shared_preload_libraries'
]

// Set by the lab for every server it starts, and no part of an experiment's question.
const PLUMBING = ['port', 'listen_addresses', 'unix_socket_directories']

/**
 * The settings above, and every setting a configuration file gave (a
 * profile, a variant's own settings), as the server reports them at the
 * start (with units).
 * @param {import('pg').Client} client
 * @returns {Promise<Record<string, string>>}
 */
export async function readSettings(client) {
  const { rows } = await client.query(
    `SELECT name, current_setting(name) AS value FROM pg_settings
    WHERE name = ANY($1::text[]) OR (source = 'configuration file' AND NOT name = ANY($2::text[])) ORDER BY name`,
    [SETTINGS, PLUMBING]
  )
  return Object.fromEntries(rows.map(r => [r.name, r.value]))
}

/**
 * Writes run.json: what a run directory needs to describe itself.
 * @param {string} dir
 * @param {Record<string, unknown>} info
 */
export async function writeRunInfo(dir, info) {
  await mkdir(dir, { recursive: true })
  await writeFile(
    path.join(dir, 'run.json'),
    JSON.stringify({ pgloadgen_version: PGLOADGEN_VERSION, ...info }, null, 2) + '\n'
  )
}
