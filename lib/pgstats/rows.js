// From the rows a statement returns to the plain data the collector keeps:
// numbers as numbers (node-postgres returns bigint and numeric as strings),
// vacuum phases and modes decoded, connection states zero-filled, settings
// in base units.

/** @typedef {Record<string, string | number | null>} Row */

/** Connection states zero-filled for every database. */
export const CONNECTION_STATES = /** @type {const} */ ([
  'active',
  'idle',
  'idle in transaction',
  'idle in transaction (aborted)',
  'fastpath function call',
  'disabled'
])

/**
 * pg_stat_progress_vacuum.phase as a number: the index in this list; -1 for
 * a phase this list does not know.
 */
export const VACUUM_PHASES = /** @type {const} */ ([
  'initializing',
  'scanning heap',
  'vacuuming indexes',
  'vacuuming heap',
  'cleaning up indexes',
  'truncating heap',
  'performing final cleanup'
])

// Columns that are labels (strings), whatever the statement.
const LABELS = new Set([
  'datname',
  'schemaname',
  'relname',
  'root_schemaname',
  'root_relname',
  'indexrelname',
  'state',
  'method',
  'vacuum_mode',
  'phase_name',
  'name',
  'setting',
  'unit',
  'backend_type',
  'query',
  'kind',
  'application_name',
  'part'
])

/**
 * @param {unknown} value
 * @returns {number | null}
 */
export function toNumber(value) {
  if (value === null || value === undefined) return null
  const n = Number(value)
  return Number.isFinite(n) ? n : null
}

/**
 * Label columns as strings, the others as numbers.
 * @param {Row[]} rows
 * @returns {Row[]}
 */
export function numericRows(rows) {
  return rows.map(row => {
    /** @type {Row} */
    const out = {}
    for (const [key, value] of Object.entries(row))
      out[key] = LABELS.has(key) ? (value === null ? null : String(value)) : toNumber(value)
    return out
  })
}

/**
 * manual, autovacuum or wraparound, from the vacuuming process's
 * pg_stat_activity row. Autovacuum workers report their activity as
 * "autovacuum: VACUUM [ANALYZE] schema.table", followed by
 * " (to prevent wraparound)" for an anti-wraparound vacuum.
 * @param {{ backend_type?: unknown, query?: unknown }} row
 * @returns {'manual' | 'autovacuum' | 'wraparound'}
 */
export function vacuumMode({ backend_type: backendType, query }) {
  const text = typeof query === 'string' ? query : ''
  if (backendType !== 'autovacuum worker' && !text.startsWith('autovacuum:')) return 'manual'
  return text.includes('(to prevent wraparound)') ? 'wraparound' : 'autovacuum'
}

/** @param {unknown} phase */
export function vacuumPhase(phase) {
  return VACUUM_PHASES.indexOf(/** @type {any} */ (phase))
}

/**
 * @param {Row[]} rows   pid, datname, relname, phase (text), counters, query_start, backend_type, query
 */
export function parseVacuums(rows) {
  return rows.map(row => {
    const n = numericRows([row])[0]
    return {
      pid: n.pid,
      datname: n.datname ?? '',
      schemaname: n.schemaname ?? '',
      relname: n.relname ?? '',
      vacuum_mode: vacuumMode(row),
      phase_name: String(row.phase),
      phase: vacuumPhase(row.phase),
      heap_blks_total: n.heap_blks_total,
      heap_blks_scanned: n.heap_blks_scanned,
      heap_blks_vacuumed: n.heap_blks_vacuumed,
      index_vacuum_count: n.index_vacuum_count,
      max_dead_tuples: n.max_dead_tuples,
      num_dead_tuples: n.num_dead_tuples,
      max_dead_tuple_bytes: n.max_dead_tuple_bytes ?? null,
      dead_tuple_bytes: n.dead_tuple_bytes ?? null,
      indexes_total: n.indexes_total ?? null,
      indexes_processed: n.indexes_processed ?? null,
      delay_time_seconds: n.delay_time_seconds ?? null,
      query_start: n.query_start,
      running: 1
    }
  })
}

/**
 * One row per database and state, every known state present (0 when no
 * backend is in it); a state the server reports that the list does not know
 * is kept too.
 * @param {Row[]} rows   datname, state (null: no backend), connections
 */
export function parseActivity(rows) {
  /** @type {Map<string, Map<string, number>>} */
  const byDatabase = new Map()
  for (const row of rows) {
    const datname = String(row.datname)
    let states = byDatabase.get(datname)
    if (!states) {
      states = new Map(CONNECTION_STATES.map(state => [state, 0]))
      byDatabase.set(datname, states)
    }
    if (row.state !== null) {
      states.set(String(row.state), (states.get(String(row.state)) ?? 0) + (toNumber(row.connections) ?? 0))
    }
  }
  const out = []
  for (const [datname, states] of byDatabase) {
    for (const [state, connections] of states) out.push({ datname, state, connections })
  }
  return out
}

const UNIT_SECONDS = /** @type {Record<string, number>} */ ({ us: 1e-6, ms: 1e-3, s: 1, min: 60, h: 3600, d: 86400 })

/**
 * The autovacuum settings in base units, and the connection slots, as one row.
 * autovacuum_vacuum_cost_delay = -1 means "use vacuum_cost_delay": the
 * effective value is exported.
 * @param {Row[]} rows   name, setting, unit from pg_settings
 */
export function parseSettings(rows) {
  /** @type {Record<string, number | null>} */
  const values = {}
  for (const row of rows) {
    const text = String(row.setting)
    const factor = row.unit ? (UNIT_SECONDS[String(row.unit)] ?? 1) : 1
    values[String(row.name)] =
      text === 'on'
        ? 1
        : text === 'off'
          ? 0
          : toNumber(text) === null
            ? null
            : /** @type {number} */ (toNumber(text)) * factor
  }
  const costDelay = values.autovacuum_vacuum_cost_delay
  return [
    {
      autovacuum: values.autovacuum ?? null,
      autovacuum_freeze_max_age: values.autovacuum_freeze_max_age ?? null,
      autovacuum_vacuum_threshold: values.autovacuum_vacuum_threshold ?? null,
      autovacuum_vacuum_scale_factor: values.autovacuum_vacuum_scale_factor ?? null,
      autovacuum_naptime_seconds: values.autovacuum_naptime ?? null,
      autovacuum_vacuum_cost_delay_seconds:
        costDelay !== undefined && costDelay !== null && costDelay < 0
          ? (values.vacuum_cost_delay ?? null)
          : (costDelay ?? null),
      autovacuum_max_workers: values.autovacuum_max_workers ?? null,
      server_started_at: values.server_started_at ?? null,
      connectable_databases: values.connectable_databases ?? null,
      connection_slots: connectionSlots(values)
    }
  ]
}

/**
 * The connections a role without the superuser's (or, on 16+,
 * pg_use_reserved_connections') privilege may open: max_connections less
 * the slots reserved for those roles; null when max_connections is unknown.
 * @param {Record<string, number | null>} values
 */
function connectionSlots(values) {
  const max = values.max_connections
  if (max === undefined || max === null) return null
  return max - (values.superuser_reserved_connections ?? 0) - (values.reserved_connections ?? 0)
}

/**
 * Database rows get empty schemaname and relname, so that per-table and
 * per-database series share one metric with one set of labels.
 * @param {Row[]} rows
 */
export function parseXidDatabases(rows) {
  return numericRows(rows).map(row => ({ ...row, schemaname: '', relname: '' }))
}

/** The kinds of xmin horizon holders, in the horizon statement's kind column. */
export const HORIZON_KINDS = /** @type {const} */ (['backend', 'prepared', 'slot'])

/**
 * The holders (part 'holder', oldest first, as the statement returned
 * them), then for each kind the oldest age, 0 when none holds the horizon
 * (part 'kind', column kind_oldest_age), then the oldest of all (part
 * 'oldest', column oldest_age): the per-kind figures exist whenever the
 * statement succeeded, so that "nothing holds it" is a 0 and not a gap.
 * @param {Row[]} rows   kind, pid, application_name, state, backend_type, datname, name, xact_age_s, xmin_age,
 *   slot_xmin_age, slot_catalog_xmin_age
 */
export function parseHorizon(rows) {
  /** @type {Row[]} */
  const holders = numericRows(rows).map(row => ({ part: 'holder', ...row }))
  /** @param {unknown} kind */
  const oldestOf = kind =>
    Math.max(0, ...holders.flatMap(h => (h.kind === kind && typeof h.xmin_age === 'number' ? [h.xmin_age] : [])))
  // a kind the list does not know is kept too
  const kinds = [...new Set([...HORIZON_KINDS, ...holders.flatMap(h => (h.kind === null ? [] : [String(h.kind)]))])]
  /** @type {Row[]} */
  const perKind = kinds.map(kind => ({ part: 'kind', kind, kind_oldest_age: oldestOf(kind) }))
  return [...holders, ...perKind, { part: 'oldest', oldest_age: Math.max(0, ...kinds.map(oldestOf)) }]
}

/**
 * The locks statement's rows under their own columns, so that each metric
 * reads its part only: 'database' rows get waiting_backends, the 'total'
 * row waiting, wait_s (null when none waits) and longest_wait_seconds (0
 * when none waits), 'blocker' rows pid, application_name, state, datname,
 * blocked (how many of the waiters examined it holds up) and wait_s (the
 * longest of their waits).
 * @param {Row[]} rows   part, datname, waiting, wait_s, pid, application_name, state
 * @returns {Row[]}
 */
export function parseLocks(rows) {
  return numericRows(rows).map(row => {
    /** @type {Row} */
    const out =
      row.part === 'database'
        ? { part: 'database', datname: row.datname, waiting_backends: row.waiting ?? 0, wait_s: row.wait_s }
        : row.part === 'total'
          ? { part: 'total', waiting: row.waiting ?? 0, wait_s: row.wait_s, longest_wait_seconds: row.wait_s ?? 0 }
          : {
              part: row.part,
              pid: row.pid,
              application_name: row.application_name,
              state: row.state,
              datname: row.datname,
              blocked: row.waiting,
              wait_s: row.wait_s
            }
    return out
  })
}

/** @type {Record<string, (rows: Row[]) => Row[]>} */
const PARSERS = {
  progress_vacuum: parseVacuums,
  activity: parseActivity,
  settings: parseSettings,
  xid_databases: parseXidDatabases,
  horizon: parseHorizon,
  locks: parseLocks
}

/**
 * @param {string} query   name of the statement
 * @param {Row[]} rows
 * @returns {Row[]}
 */
export function parseRows(query, rows) {
  return (PARSERS[query] ?? numericRows)(rows)
}
