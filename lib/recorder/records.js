// The shapes of a run's record, as the recorder and the event log write
// them: a line of samples.ndjson, a line of events.ndjson. Types only.

/**
 * @typedef {object} RequestFigures
 * @property {number} done
 * @property {number} failed
 * @property {number | null} p50_us
 * @property {number | null} p99_us
 * @property {import('./p99-windows.js').WindowFigures} [window]  in the sample that closes a window of at least
 *   500 requests: the p99 over it (p99-windows.js)
 */

/**
 * @typedef {object} VacuumFigures
 * @property {number} phase           0 initializing … 6 performing final cleanup, -1 other
 * @property {string} [phase_name]
 * @property {string} [mode]
 * @property {number | null} [heap_blks_total]
 * @property {number | null} [heap_blks_scanned]
 * @property {number | null} [heap_blks_vacuumed]
 * @property {number | null} [started_at]   Unix seconds: when the vacuuming process began its work on the table
 */

/**
 * @typedef {object} PgFigures
 * @property {string} [table]
 * @property {number | null} [live_tuples]
 * @property {number | null} [dead_tuples]
 * @property {number | null} [table_bytes]
 * @property {number | null} [index_bytes]
 * @property {number | null} [xid_age]
 * @property {number | null} [mxid_age]
 * @property {number} [partitions]    a partitioned table: how many partitions its figures add up
 * @property {VacuumFigures | null} [vacuum]
 * @property {{ reason: string, next_s: number, crossing_s: number, duration_s?: number | null, at?: number } | null}
 *   [autovacuum_forecast]  when autovacuum is
 *   forecast to start on the table, and why (lib/pgstats/autovacuum-forecast.js), made at `at` (Unix
 *   seconds: the poll's, before the sample's); null: not toward any threshold, or its autovacuum at work
 */

/**
 * @typedef {object} MemoryFigures   bytes
 * @property {number} rss             resident, the whole process
 * @property {number} heap_total      the main thread's JavaScript heap, as reserved
 * @property {number} heap_used       and as used
 * @property {number} external        buffers outside that heap (socket buffers, the insert ledger's chunks)
 */

/**
 * One line of samples.ndjson.
 * @typedef {object} Sample
 * @property {string} t               end of the second it describes
 * @property {number} [elapsed_s]
 * @property {number} [concurrency]
 * @property {boolean} [paused]
 * @property {boolean} [warmup]      a second of --warmup: left out of the summary and of what changed
 * @property {number} throughput      requests done in that second, all types
 * @property {Record<string, RequestFigures>} [requests]
 * @property {{ user: number, system: number }} [cpu_us]
 * @property {MemoryFigures} [memory]  the generator's memory at the end of the second
 * @property {PgFigures | null} [pg]
 * @property {number} [rows]          rows the requests reported written in that second
 * @property {number} [points]        points (metric values) they reported written
 * @property {{ p50_us?: number | null, p99_us?: number | null, window?: import('./p99-windows.js').WindowFigures }}
 *   [lag]  paced or open loop: how late the requests started (and in the sample that closes a window of 500,
 *   the p99 over it)
 * @property {Record<string, number | null>} [workload]  the workload's own statistics
 * @property {number} [connections]   the generator's open connections
 * @property {number} [reconnects]    the generator's reconnects so far (cumulative)
 * @property {ServerFigures | null} [server]  the whole server as of the last poll (recorder.js serverFigures)
 * @property {import('./host-cpu.js').HostFigures | null} [host]  the machine's CPU in that second, and who used it
 *   (recorder/host-cpu.js)
 */

/**
 * @typedef {object} ServerFigures
 * @property {string} [polled_at]
 * @property {Array<{ pid: number | null, table: string, mode: string, phase_name: string, started_at: number | null,
 *     here?: boolean,
 *     dead_tuple_bytes?: number | null, max_dead_tuple_bytes?: number | null, indexes_total?: number | null,
 * indexes_processed?: number | null, delay_time_s?: number | null }>} [vacuums]
 * @property {{ xid_age: number | null, mxid_age: number | null } | null} [database]  the run's database's
 *   age(datfrozenxid) and mxid_age(datminmxid)
 * @property {{ timed: number | null, requested: number | null, running?: boolean } | null} [checkpoints]
 *   cumulative counters (they rise as a checkpoint ends), and whether one was under way at the poll
 * @property {{ clients: number, slots: number | null } | null} [connections]  the server's sessions in a
 *   database, every database's, and how many a role without reserved slots may open
 * @property {{ records: number | null, fpi: number | null, bytes: number | null } | null} [wal]  cumulative
 *   pg_stat_wal counters (PostgreSQL 14+): records, full-page images, bytes
 * @property {Array<{ kind: string, pid: number | null, application_name: string | null, name: string | null,
 *     state: string | null, xact_age_s: number | null, xmin_age: number | null }>} [horizon]
 * @property {{ waiting: number, longest_wait_s: number | null, blockers: Array<{ pid: number,
 *     application_name: string | null }>, waiting_on_server?: number } | null} [locks]  the run's database's
 */

/**
 * One line of the events file.
 * @typedef {object} LabEvent
 * @property {string} ts          ISO time
 * @property {'start' | 'end' | 'point'} kind
 * @property {string} action      vacuum, checkpoint, analyze, reset-stats, concurrency, pause, …
 * @property {string} [table]
 * @property {number} [duration_s]  on ends
 * @property {boolean} [ok]        on ends
 * @property {string} [error]      on failed ends
 * @property {Record<string, unknown>} [detail]
 */

export {}
