// What the autovacuum rule (autovacuum-rule.js) reads of each table: its
// counters, and each setting of the rule with the table's reloption of that
// name in its place. A setting a major does not have reads as off: the
// insert threshold before 13, the cap on the vacuum threshold before 18.

/**
 * The table's reloption of that name, else the server's setting, as SQL.
 * @param {string} name
 * @param {'bigint' | 'float8'} type
 */
function option(name, type) {
  const own = `(SELECT split_part(o, '=', 2) FROM unnest(c.reloptions) o WHERE o LIKE '${name}=%')`
  return `coalesce(${own}, current_setting('${name}'))::${type} AS ${name.replace(/^autovacuum_/, '')}`
}

/**
 * The query, for a server of a major that has the insert threshold (13 on)
 * and the cap on the vacuum threshold with relallfrozen (18 on), or not.
 * @param {{ inserts: boolean, capped: boolean }} major
 */
export function autovacuumInputsSql({ inserts, capped }) {
  return `SELECT current_database() AS datname, s.schemaname, s.relname,
  c.reltuples::float8 AS reltuples, c.relpages::bigint AS relpages,
  ${capped ? 'c.relallfrozen::bigint' : 'NULL::bigint'} AS relallfrozen,
  s.n_dead_tup, ${inserts ? 's.n_ins_since_vacuum' : 'NULL::bigint AS n_ins_since_vacuum'}, s.n_mod_since_analyze,
  extract(epoch FROM s.last_autovacuum)::float8 AS last_autovacuum_end,
  current_setting('autovacuum')::bool
    AND coalesce((SELECT split_part(o, '=', 2) FROM unnest(c.reloptions) o
      WHERE o LIKE 'autovacuum_enabled=%')::bool, true) AS enabled,
  ${option('autovacuum_vacuum_threshold', 'bigint')},
  ${option('autovacuum_vacuum_scale_factor', 'float8')},
  ${capped ? option('autovacuum_vacuum_max_threshold', 'bigint') : '-1::bigint AS vacuum_max_threshold'},
  ${inserts ? option('autovacuum_vacuum_insert_threshold', 'bigint') : '-1::bigint AS vacuum_insert_threshold'},
  ${inserts ? option('autovacuum_vacuum_insert_scale_factor', 'float8') : '0::float8 AS vacuum_insert_scale_factor'},
  ${option('autovacuum_analyze_threshold', 'bigint')},
  ${option('autovacuum_analyze_scale_factor', 'float8')}
FROM pg_stat_user_tables s
JOIN pg_class c ON c.oid = s.relid
WHERE c.relkind IN ('r', 'm')`
}

/**
 * A row of the query as the rule's parameters.
 * @param {Record<string, any>} row
 * @returns {import('./autovacuum-rule.js').AutovacuumParams}
 */
export function paramsOf(row) {
  return {
    // true, or 1 once the collector's rows are numbers
    enabled: row.enabled === true || row.enabled === 1,
    vacuumThreshold: Number(row.vacuum_threshold),
    vacuumScaleFactor: Number(row.vacuum_scale_factor),
    vacuumMaxThreshold: Number(row.vacuum_max_threshold),
    insertThreshold: Number(row.vacuum_insert_threshold),
    insertScaleFactor: Number(row.vacuum_insert_scale_factor),
    analyzeThreshold: Number(row.analyze_threshold),
    analyzeScaleFactor: Number(row.analyze_scale_factor)
  }
}

/**
 * A row of the query as the rule's counts, with the distances to the
 * forced vacuums (XID_TABLES of queries.js: tx_until_wraparound_autovacuum
 * and mxid_until_wraparound_autovacuum).
 * @param {Record<string, any>} row
 * @param {{ xidsToForce: number, mxidsToForce: number }} forced
 * @returns {import('./autovacuum-rule.js').TableCounts}
 */
export function countsOf(row, { xidsToForce, mxidsToForce }) {
  const orNull = (/** @type {unknown} */ value) => (value === null || value === undefined ? null : Number(value))
  return {
    reltuples: Number(row.reltuples),
    relpages: Number(row.relpages),
    relallfrozen: orNull(row.relallfrozen),
    deadTuples: Number(row.n_dead_tup),
    insertsSinceVacuum: orNull(row.n_ins_since_vacuum),
    modsSinceAnalyze: Number(row.n_mod_since_analyze),
    xidsToForce,
    mxidsToForce
  }
}

/**
 * A table's distances to the forced vacuums, from its row of the
 * collector's xid_tables statement (Infinity when unknown).
 * @param {Record<string, unknown> | undefined} row
 * @returns {{ xidsToForce: number, mxidsToForce: number }}
 */
export function forcedOf(row) {
  const far = (/** @type {unknown} */ value) => (typeof value === 'number' ? value : Infinity)
  return {
    xidsToForce: far(row?.tx_until_wraparound_autovacuum),
    mxidsToForce: far(row?.mxid_until_wraparound_autovacuum)
  }
}
