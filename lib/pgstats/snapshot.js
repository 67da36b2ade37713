// The collector's last figures as plain data, for code that decides on them
// (a scheduler evaluating conditions) without polling the server again.

/**
 * @typedef {object} TableSnapshot
 * @property {string} datname
 * @property {string} schemaname
 * @property {string} relname
 * @property {number | null} liveTuples        n_live_tup
 * @property {number | null} deadTuples        n_dead_tup
 * @property {number | null} deadFraction      dead / (live + dead), 0 when both are 0
 * @property {number | null} totalBytes        pg_total_relation_size
 * @property {number | null} indexBytes        pg_indexes_size
 * @property {number | null} xidAge            age(relfrozenxid), the TOAST table's if older
 * @property {number | null} txUntilWraparoundAutovacuum
 * @property {number | null} mxidAge           mxid_age(relminmxid), the TOAST table's if older
 * @property {number | null} lastVacuum        Unix seconds, 0 when never
 * @property {number | null} lastAutovacuum    Unix seconds, 0 when never
 * @property {number | null} bloatRatio        catalog estimate, 0 to 1
 * @property {{ reason: string, nextS: number, crossingS: number, durationS: number | null, atS: number } | null}
 *   autovacuumForecast  when autovacuum is
 *   forecast to start on it and why (autovacuum-forecast.js); null: no counter moves toward a threshold
 * @property {number} [partitions]             a partitioned table: how many partitions its figures add up
 */

/**
 * @typedef {object} DatabaseSnapshot
 * @property {string} datname
 * @property {number | null} xidAge            age(datfrozenxid)
 * @property {number | null} txUntilWraparoundAutovacuum
 * @property {number | null} mxidAge           mxid_age(datminmxid)
 * @property {number | null} sizeBytes
 */

/**
 * @typedef {object} VacuumSnapshot
 * @property {string | null} rootRelname   the partitioned table, when a partition is vacuumed
 * @property {number | null} pid
 * @property {string} datname
 * @property {string} schemaname   '' outside the connected database
 * @property {string} relname      the relation's oid outside the connected database
 * @property {'manual' | 'autovacuum' | 'wraparound'} mode
 * @property {number} phase        see VACUUM_PHASES in rows.js
 * @property {string} phaseName
 * @property {number | null} heapBlksTotal
 * @property {number | null} heapBlksScanned
 * @property {number | null} heapBlksVacuumed
 * @property {number | null} startedAt    Unix seconds
 * @property {number | null} deadTupleBytes      memory its dead items use (PostgreSQL 17+)
 * @property {number | null} maxDeadTupleBytes   memory they may use before a pass over the indexes (17+)
 * @property {number | null} indexesTotal        indexes of the current pass (17+)
 * @property {number | null} indexesProcessed    of which done (17+)
 * @property {number | null} delayTimeS          time slept in the cost-based delay (18+, with track_cost_delay_timing)
 */

/**
 * A backend, prepared transaction or replication slot holding back the
 * server's xmin horizon.
 * @typedef {object} HorizonHolder
 * @property {'backend' | 'prepared' | 'slot'} kind
 * @property {number | null} pid               backend; a slot's active_pid; null for a prepared transaction
 * @property {string | null} applicationName   backends only
 * @property {string | null} state             a backend's state; 'active' / 'inactive' for a slot
 * @property {string | null} name              a prepared transaction's gid, a slot's name
 * @property {string | null} datname
 * @property {number | null} xactAgeS          seconds the transaction has been open (prepared: since PREPARE); null for
 *   slots
 * @property {number | null} xminAge           transactions: greatest(age(backend_xid), age(backend_xmin)),
 *   age(transaction), greatest(age(xmin), age(catalog_xmin))
 */

/**
 * @typedef {object} LockBlocker
 * @property {number} pid
 * @property {string | null} applicationName
 * @property {string | null} state
 * @property {string | null} datname
 */

/**
 * @typedef {object} LocksSnapshot
 * @property {number} waiting                  backends waiting for a heavyweight lock, on the whole server
 * @property {number | null} longestWaitS      null when none waits
 * @property {LockBlocker[]} blockers          at most 5, those holding up the longest waits first
 * @property {Record<string, { waiting: number, longestWaitS: number | null }>} byDatabase   the same per database
 */

/**
 * @typedef {object} CheckpointsSnapshot
 * @property {number | null} timed       cumulative: checkpoints_timed (num_timed on 17+)
 * @property {number | null} requested   cumulative: checkpoints_req (num_requested on 17+)
 * @property {boolean} [running]         the checkpointer was in a checkpoint at the poll (its wait event)
 */

/**
 * @typedef {object} ConnectionsSnapshot
 * @property {number} clients        sessions in a database, of every database (pg_stat_activity with a state)
 * @property {number | null} slots   how many a role without reserved slots may open (rows.js connectionSlots)
 */

/**
 * @typedef {object} WalSnapshot
 * @property {number | null} records   cumulative: pg_stat_wal.wal_records
 * @property {number | null} fpi       cumulative: full-page images written to the WAL
 * @property {number | null} bytes     cumulative: bytes of WAL written
 */

/**
 * @typedef {object} StatsSnapshot
 * @property {number} time                 end of the last poll, Unix seconds
 * @property {number | null} serverVersionNum
 * @property {string} datname              the database the collector is connected to
 * @property {TableSnapshot[]} tables      the connected database's user tables
 * @property {DatabaseSnapshot[]} databases
 * @property {VacuumSnapshot[]} vacuums    running now, on the whole server
 * @property {HorizonHolder[]} horizon     oldest first, at most 5 of each kind; [] when none or the statement failed
 * @property {LocksSnapshot | null} locks  null when the statement failed or its rows are stale
 * @property {CheckpointsSnapshot | null} checkpoints   null when the bgwriter statement failed or is stale
 * @property {ConnectionsSnapshot | null} connections   null when the activity statement failed or is stale
 * @property {WalSnapshot | null} wal   null before PostgreSQL 14 (no pg_stat_wal) or when its statement failed
 */

/** @typedef {(section: string) => import('./rows.js').Row[]} Rows */

/** @param {import('./rows.js').Row} row */
const tableKey = row => `${row.datname}\u0000${row.schemaname}\u0000${row.relname}`

/**
 * @param {{ rows: Rows, time: number, serverVersionNum: number | null, datname: string }} source
 * @returns {StatsSnapshot}
 */
export function buildSnapshot({ rows, time, serverVersionNum, datname }) {
  const tables = tablesOf(rows)
  const databases = databasesOf(rows)
  const vacuums = vacuumsOf(rows)
  rollUpPartitions(tables, rows('partitions'), vacuums)
  return {
    time,
    serverVersionNum,
    datname,
    tables,
    databases,
    vacuums,
    horizon: horizonOf(rows('horizon')),
    locks: locksOf(rows('locks')),
    checkpoints: checkpointsOf(rows('bgwriter')),
    connections: connectionsOf(rows('activity'), rows('settings')),
    wal: walOf(rows('wal'))
  }
}

/**
 * Every table any section knows, user_tables first: its tuples, size,
 * transaction ID ages, vacuums and bloat.
 * @param {Rows} rows
 */
function tablesOf(rows) {
  /** @param {string} section */
  const byTable = section => new Map(rows(section).map(row => [tableKey(row), row]))
  const sizes = byTable('relation_size')
  const xids = byTable('xid_tables')
  const bloat = byTable('bloat_tables')
  const forecasts = byTable('autovacuum_forecast')
  // Every table any section knows, user_tables first.
  /** @type {Map<string, import('./rows.js').Row>} */
  const names = new Map()
  for (const section of ['user_tables', 'relation_size', 'xid_tables']) {
    for (const row of rows(section)) if (!names.has(tableKey(row))) names.set(tableKey(row), row)
  }
  const stats = byTable('user_tables')
  return [...names].map(([key, row]) => {
    const s = stats.get(key)
    const live = num(s?.n_live_tup)
    const dead = num(s?.n_dead_tup)
    return {
      datname: String(row.datname),
      schemaname: String(row.schemaname),
      relname: String(row.relname),
      liveTuples: live,
      deadTuples: dead,
      deadFraction: live === null || dead === null ? null : live + dead > 0 ? dead / (live + dead) : 0,
      totalBytes: num(sizes.get(key)?.total_bytes),
      indexBytes: num(sizes.get(key)?.index_bytes),
      xidAge: num(xids.get(key)?.xid_age),
      txUntilWraparoundAutovacuum: num(xids.get(key)?.tx_until_wraparound_autovacuum),
      mxidAge: num(xids.get(key)?.mxid_age),
      lastVacuum: num(s?.last_vacuum),
      lastAutovacuum: num(s?.last_autovacuum),
      bloatRatio: num(bloat.get(key)?.bloat_ratio),
      autovacuumForecast: forecastOf(forecasts.get(key))
    }
  })
}

/**
 * A table's autovacuum forecast as the snapshot keeps it.
 * @param {import('./rows.js').Row | undefined} row   of the autovacuum_forecast section
 */
function forecastOf(row) {
  const nextS = num(row?.next_seconds)
  const crossingS = num(row?.crossing_seconds)
  if (!row || nextS === null || crossingS === null) return null
  return {
    reason: String(row.reason),
    nextS,
    crossingS,
    durationS: num(row.duration_seconds),
    atS: num(row.forecast_at) ?? Date.now() / 1000
  }
}

/**
 * Every database: its transaction ID ages and its size.
 * @param {Rows} rows
 * @returns {DatabaseSnapshot[]}
 */
function databasesOf(rows) {
  const dbSizes = new Map(rows('database').map(row => [row.datname, row]))
  /** @type {Map<unknown, DatabaseSnapshot>} */
  const databases = new Map()
  for (const row of rows('xid_databases')) {
    databases.set(row.datname, {
      datname: String(row.datname),
      xidAge: num(row.xid_age),
      txUntilWraparoundAutovacuum: num(row.tx_until_wraparound_autovacuum),
      mxidAge: num(row.mxid_age),
      sizeBytes: num(dbSizes.get(row.datname)?.size_bytes)
    })
  }
  for (const row of dbSizes.values()) {
    if (!databases.has(row.datname)) {
      databases.set(row.datname, {
        datname: String(row.datname),
        xidAge: null,
        txUntilWraparoundAutovacuum: null,
        mxidAge: null,
        sizeBytes: num(row.size_bytes)
      })
    }
  }
  return [...databases.values()]
}

/**
 * The vacuums running, from pg_stat_progress_vacuum.
 * @param {Rows} rows
 */
function vacuumsOf(rows) {
  return rows('progress_vacuum').map(row => ({
    pid: num(row.pid),
    datname: String(row.datname),
    schemaname: String(row.schemaname ?? ''),
    relname: String(row.relname),
    mode: /** @type {'manual' | 'autovacuum' | 'wraparound'} */ (row.vacuum_mode),
    phase: Number(row.phase),
    phaseName: String(row.phase_name),
    heapBlksTotal: num(row.heap_blks_total),
    heapBlksScanned: num(row.heap_blks_scanned),
    heapBlksVacuumed: num(row.heap_blks_vacuumed),
    startedAt: num(row.query_start),
    deadTupleBytes: num(row.dead_tuple_bytes),
    maxDeadTupleBytes: num(row.max_dead_tuple_bytes),
    indexesTotal: num(row.indexes_total),
    indexesProcessed: num(row.indexes_processed),
    delayTimeS: num(row.delay_time_seconds),
    rootRelname: null
  }))
}

const str = (/** @type {unknown} */ value) => (value === null || value === undefined ? null : String(value))
const num = (/** @type {unknown} */ value) => (typeof value === 'number' ? value : null)

/**
 * @param {import('./rows.js').Row[]} rows   of the horizon section (rows.js parseHorizon)
 * @returns {HorizonHolder[]}
 */
function horizonOf(rows) {
  return rows
    .filter(row => row.part === 'holder')
    .map(row => ({
      kind: /** @type {'backend' | 'prepared' | 'slot'} */ (row.kind),
      pid: num(row.pid),
      applicationName: str(row.application_name),
      state: str(row.state),
      name: str(row.name),
      datname: str(row.datname),
      xactAgeS: num(row.xact_age_s),
      xminAge: num(row.xmin_age)
    }))
}

/**
 * @param {import('./rows.js').Row[]} rows   of the locks section (rows.js parseLocks)
 * @returns {LocksSnapshot | null}
 */
function locksOf(rows) {
  const total = rows.find(row => row.part === 'total')
  if (!total) return null
  const waiting = num(total.waiting) ?? 0
  return {
    waiting,
    longestWaitS: waiting > 0 ? num(total.wait_s) : null,
    blockers: rows
      .filter(row => row.part === 'blocker' && typeof row.pid === 'number')
      .map(row => ({
        pid: /** @type {number} */ (row.pid),
        applicationName: str(row.application_name),
        state: str(row.state),
        datname: str(row.datname)
      })),
    byDatabase: Object.fromEntries(
      rows
        .filter(row => row.part === 'database' && row.datname !== null)
        .map(row => {
          const n = num(row.waiting_backends) ?? 0
          return [String(row.datname), { waiting: n, longestWaitS: n > 0 ? num(row.wait_s) : null }]
        })
    )
  }
}

/**
 * @param {import('./rows.js').Row[]} rows   of the bgwriter section
 * @returns {CheckpointsSnapshot | null}
 */
function checkpointsOf(rows) {
  const row = rows[0]
  if (!row) return null
  const wait = row.checkpointer_wait
  return {
    timed: num(row.checkpoints_timed),
    requested: num(row.checkpoints_req),
    running: typeof wait === 'string' && wait !== 'CheckpointerMain'
  }
}

/**
 * @param {import('./rows.js').Row[]} activity   of the activity section: connections by database and state
 * @param {import('./rows.js').Row[]} settings   of the settings section (refreshed less often)
 * @returns {ConnectionsSnapshot | null}
 */
function connectionsOf(activity, settings) {
  if (activity.length === 0) return null
  return {
    clients: activity.reduce((sum, row) => sum + (num(row.connections) ?? 0), 0),
    slots: num(settings[0]?.connection_slots)
  }
}

/**
 * @param {import('./rows.js').Row[]} rows   of the wal section
 * @returns {WalSnapshot | null}
 */
function walOf(rows) {
  const row = rows[0]
  if (!row) return null
  return { records: num(row.wal_records), fpi: num(row.wal_fpi), bytes: num(row.wal_bytes) }
}

/**
 * A partitioned table has no rows of its own: its tuples, sizes and
 * vacuum times become those of its partitions added up (the oldest xid
 * age), and a vacuum of a partition counts as one of the table.
 * @param {TableSnapshot[]} tables   changed in place
 * @param {import('./rows.js').Row[]} partitions  from the partitions section
 * @param {VacuumSnapshot[]} vacuums  changed in place
 */
function rollUpPartitions(tables, partitions, vacuums) {
  if (partitions.length === 0) return
  const key = (/** @type {unknown} */ schema, /** @type {unknown} */ name) => `${schema}\u0000${name}`
  const byKey = new Map(tables.map(table => [key(table.schemaname, table.relname), table]))
  /** @type {Map<string, { schemaname: string, relname: string, parts: TableSnapshot[] }>} */
  const roots = new Map()
  /** @type {Map<string, string>} partition's relname → its root's */
  const rootOf = new Map()
  for (const row of partitions) {
    const part = byKey.get(key(row.schemaname, row.relname))
    const rootKey = key(row.root_schemaname, row.root_relname)
    const root = roots.get(rootKey) ?? {
      schemaname: String(row.root_schemaname),
      relname: String(row.root_relname),
      parts: []
    }
    roots.set(rootKey, root)
    if (part) root.parts.push(part)
    rootOf.set(String(row.relname), String(row.root_relname))
  }
  const add = (/** @type {Array<number | null>} */ values) =>
    values.some(v => v !== null) ? values.reduce((a, b) => (a ?? 0) + (b ?? 0), 0) : null
  const max = (/** @type {Array<number | null>} */ values) =>
    values.some(v => v !== null) ? Math.max(...values.filter(v => v !== null)) : null
  for (const [rootKey, { schemaname, relname, parts }] of roots) {
    const live = add(parts.map(p => p.liveTuples))
    const dead = add(parts.map(p => p.deadTuples))
    const figures = {
      liveTuples: live,
      deadTuples: dead,
      deadFraction: live === null || dead === null ? null : live + dead > 0 ? dead / (live + dead) : 0,
      totalBytes: add(parts.map(p => p.totalBytes)),
      indexBytes: add(parts.map(p => p.indexBytes)),
      xidAge: max(parts.map(p => p.xidAge)),
      txUntilWraparoundAutovacuum: parts.some(p => p.txUntilWraparoundAutovacuum !== null)
        ? Math.min(
            ...parts.flatMap(p => (p.txUntilWraparoundAutovacuum === null ? [] : [p.txUntilWraparoundAutovacuum]))
          )
        : null,
      mxidAge: max(parts.map(p => p.mxidAge)),
      lastVacuum: max(parts.map(p => p.lastVacuum)),
      lastAutovacuum: max(parts.map(p => p.lastAutovacuum)),
      bloatRatio: null,
      // autovacuum takes the partitions, never the root: the soonest of theirs
      autovacuumForecast: parts.reduce(
        (/** @type {TableSnapshot['autovacuumForecast']} */ soonest, p) =>
          p.autovacuumForecast && (!soonest || p.autovacuumForecast.nextS < soonest.nextS)
            ? p.autovacuumForecast
            : soonest,
        null
      ),
      partitions: parts.length
    }
    const existing = byKey.get(rootKey)
    if (existing) Object.assign(existing, figures)
    else tables.push({ datname: parts[0]?.datname ?? '', schemaname, relname, ...figures })
  }
  for (const vacuum of vacuums) vacuum.rootRelname = rootOf.get(vacuum.relname) ?? null
}
