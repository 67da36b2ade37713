import { InputError } from '../../errors.js'
import { widestInlineWidth } from './layout.js'
import { SegmentOrder } from './order.js'

/**
 * @typedef {object} TgresShared
 * @property {number} bundleId     the rra_bundle of this step and ring size
 * @property {number} firstStep    the step this run writes first
 * @property {SegmentOrder} order   hands the units out, a segment's one at a time (shared by every client)
 */

/**
 * Once per run, after the schema: the fillfactor of ts, the bundle, the
 * series and their archives, each segment's state row, the counters the
 * run's statistics start from, and where data time resumes.
 * @param {import('../contract.js').SetupContext} context
 * @returns {Promise<TgresShared>}
 */
export async function setupTgres({ sql, config, concurrency, log }) {
  const layout = /** @type {import('./layout.js').TgresConfig} */ (config)
  const bundle = await bundleFor(sql, layout)
  await applyFillfactor(sql, layout.fillfactor, log)
  if (bundle.lastPos < layout.series) await addSeries(sql, bundle.id, layout)
  await sql(
    'INSERT INTO rra_state (rra_bundle_id, seg) SELECT $1, g FROM generate_series(0, $2::int - 1) AS g ON CONFLICT (rra_bundle_id, seg) DO NOTHING',
    [bundle.id, layout.segments]
  )
  await sql('DELETE FROM pgloadgen_tgres_run')
  await sql(`INSERT INTO pgloadgen_tgres_run (started_at, ts_updates, ts_hot_updates, ts_autovacuums)
    SELECT now(), n_tup_upd, n_tup_hot_upd, autovacuum_count FROM pg_stat_user_tables WHERE relid = to_regclass('ts')`)
  // Data time goes on from the latest point of the bundle; a new one starts now.
  const [{ ms }] = await sql(
    'SELECT (extract(epoch FROM max(l)) * 1000)::float8 AS ms FROM rra_state AS s CROSS JOIN LATERAL unnest(s.latest) AS l WHERE s.rra_bundle_id = $1',
    [bundle.id]
  )
  const firstStep = ms === null ? Math.floor(Date.now() / layout.stepMs) : Math.round(Number(ms) / layout.stepMs) + 1
  const toast =
    layout.width > widestInlineWidth()
      ? `; rows wider than ${widestInlineWidth()} series keep dp in ts's TOAST table`
      : ''
  log.info(
    `tgres: ${layout.series} series in ${layout.segments} segments of ${layout.width}, ${layout.slots} slots of ${layout.stepMs / 1000} s, ${layout.slice} series a write${toast}; data time ${ms === null ? 'starts' : 'resumes'} at ${new Date(firstStep * layout.stepMs).toISOString()} (slot ${firstStep % layout.slots})`
  )
  if (concurrency > layout.segments) {
    log.warn(
      `tgres: ${concurrency} clients for ${layout.segments} segments: a segment's writes go one at a time, so at most ${layout.segments} are in flight; the other clients wait for a segment, and the wait is in their latency`,
      'PGLG_W_OPTION_LIMITED'
    )
  }
  return { bundleId: bundle.id, firstStep, order: new SegmentOrder(layout) }
}

/**
 * Sets the fillfactor of ts when it differs. On a table that holds rows
 * already, it says what that means: the pages filled before keep the space
 * they have until the table is rewritten.
 * @param {import('../contract.js').SetupContext['sql']} sql
 * @param {number} fillfactor
 * @param {import('../../log.js').Logger} log
 */
async function applyFillfactor(sql, fillfactor, log) {
  const [table] = await sql(`SELECT coalesce((SELECT option_value FROM pg_options_to_table(c.reloptions)
        WHERE option_name = 'fillfactor'), '100')::int AS fillfactor,
      pg_relation_size(c.oid)::float8 AS bytes
    FROM pg_class AS c WHERE c.oid = to_regclass('ts')`)
  if (Number(table.fillfactor) === fillfactor) return
  await sql(`ALTER TABLE ts SET (fillfactor = ${fillfactor})`)
  if (Number(table.bytes) > 0) {
    log.warn(
      `tgres: ts had fillfactor ${table.fillfactor}, now ${fillfactor}: rows written from now on are placed by it; the pages filled before keep theirs until ts is rewritten (VACUUM FULL ts)`,
      'PGLG_W_OPTION_LIMITED'
    )
  }
}

/**
 * Tgres's bundle of this step and ring size, made when missing. Its width
 * is the table's layout: another width on the same bundle is refused.
 * @param {import('../contract.js').SetupContext['sql']} sql
 * @param {import('./layout.js').TgresConfig} layout
 */
async function bundleFor(sql, layout) {
  const spec = [layout.stepMs, layout.slots]
  // Looked up first, as Tgres does: a refused width leaves the tables as they were.
  let [row] = await sql('SELECT id, width, last_pos FROM rra_bundle WHERE step_ms = $1 AND size = $2', spec)
  if (row === undefined) {
    ;[row] = await sql(
      `INSERT INTO rra_bundle AS rra_bundle (step_ms, size, width) VALUES ($1, $2, $3)
      ON CONFLICT (step_ms, size) DO UPDATE SET size = rra_bundle.size RETURNING id, width, last_pos`,
      [...spec, layout.width]
    )
  }
  if (row.width !== layout.width) {
    throw new InputError(
      `--segment-width ${layout.width}: ts already holds the ${layout.stepMs / 1000} s × ${layout.slots} slots archives in segments of ${row.width}; give --segment-width ${row.width}, or --reset`,
      { code: 'PGLG_UNFIT_SERVER' }
    )
  }
  return { id: /** @type {number} */ (row.id), lastPos: /** @type {number} */ (row.last_pos) }
}

/**
 * Series 1…N and one archive each in the bundle, for those missing; series
 * n sits at position n: segment (n-1) / width, array index (n-1) % width + 1.
 * @param {import('../contract.js').SetupContext['sql']} sql
 * @param {number} bundleId
 * @param {import('./layout.js').TgresConfig} layout
 */
async function addSeries(sql, bundleId, layout) {
  await sql(
    `INSERT INTO ds (ident, step_ms, heartbeat_ms, seg, idx)
    SELECT jsonb_build_object('name', 'pgloadgen.tgres.' || n), $2, 2 * $2::bigint, (n - 1) / $3, (n - 1) % $3 + 1
    FROM generate_series(1, $1::int) AS n
    ON CONFLICT (ident) DO NOTHING`,
    [layout.series, layout.stepMs, layout.width]
  )
  await sql(
    `INSERT INTO rra (ds_id, rra_bundle_id, cf, pos, seg, idx)
    SELECT ds.id, $2, 'WMEAN', n, (n - 1) / $3, (n - 1) % $3 + 1
    FROM generate_series(1, $1::int) AS n JOIN ds ON ds.ident = jsonb_build_object('name', 'pgloadgen.tgres.' || n)
    ON CONFLICT (ds_id, rra_bundle_id, cf) DO NOTHING`,
    [layout.series, bundleId, layout.width]
  )
  await sql('UPDATE rra_bundle SET last_pos = $2 WHERE id = $1 AND last_pos < $2', [bundleId, layout.series])
}
