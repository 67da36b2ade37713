// What an action of the sidecar is given and gives back: its spec (a
// schedule's entry, a plan step, a command's flags), what it runs with and
// its outcome. actions.js runs them; the actions of their own modules
// (retention.js, evict-cache.js, age-xids-action.js) take the same.

/**
 * @typedef {object} ActionSpec
 * @property {'vacuum' | 'checkpoint' | 'analyze' | 'reset-stats' | 'fillfactor' | 'drop-partitions' | 'delete'
 *     | 'evict-cache' | 'age-xids'} action
 * @property {string} [table]
 * @property {boolean} [freeze]
 * @property {boolean} [full]
 * @property {boolean} [analyze]
 * @property {boolean} [verbose]
 * @property {number} [fillfactor]              fillfactor: the table's new fillfactor (10 to 100); rows placed from
 *   then on get it
 * @property {string | number} [cost_delay]     vacuum: its vacuum_cost_delay (0 to 100 ms; "20ms" or a number of ms):
 *   throttled as autovacuum is
 * @property {string | number} [older_than]     retention: a duration (10m, 1h30m, 600)
 * @property {'data' | 'clock'} [relative_to]   retention: the newest time in the table (default) or now
 * @property {number} [batch]                   delete: rows per transaction (default 10000)
 * @property {string} [time_column]             delete: default time
 * @property {boolean} [yes]                    retention removes data: must be true
 * @property {number | string} [by]             age-xids: transaction IDs to spend (2000000, 2M)
 * @property {number | string} [to_age]         age-xids: or spend until the table (table) or database is this old
 * @property {number | string | null} [rate]    age-xids: at most this many a second
 * @property {number} [parallel]                age-xids: worker connections (default 2)
 * @property {string} [hold_lock]               age-xids: a table whose SHARE UPDATE EXCLUSIVE lock it holds meanwhile
 */

/**
 * @typedef {object} ActionContext
 * @property {string} connectionString
 * @property {import('../recorder/event-log.js').EventLog} events
 * @property {import('../log.js').Logger} log
 * @property {number} [progressIntervalMs]
 * @property {(rows: number, table: string) => void} [onRowsRemoved]  retention: told the rows of each commit that
 *   removed some
 */

/**
 * @typedef {object} ActionOutcome
 * @property {boolean} ok
 * @property {number} duration_s
 * @property {string} [error]
 * @property {number} [removed_rows]   retention: rows removed (committed), also when it failed part way
 * @property {Record<string, unknown>} [detail]   retention: what was removed; evict-cache: what was evicted; vacuum:
 *   cost, what it cost (lib/pgstats/vacuum-cost.js) (as the end event says)
 */

export {}
