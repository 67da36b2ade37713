// What a workload module declares and what its code is given: the types of
// the contract between a workload and the generator (docs/workloads.md,
// "Workload modules"). lib/workloads/check.js checks a module against it.

/**
 * What a workload module exports (as its default export): its schema, its
 * request types and default mix, and one function per request type. See
 * docs/workloads.md, "Workload modules".
 * @typedef {object} WorkloadModule
 * @property {string} name
 * @property {string} [description]
 * @property {string | URL} [schema]   SQL that creates what is missing (idempotent), or a file: URL of it
 * @property {string | URL} [drop]     SQL that drops everything the schema creates (for --reset)
 * @property {string} [table]          the table the lab watches: recorded samples, plans' table_size
 * @property {{ table: string, fingerprint?: string }} [ids] the table has a dense bigint `id` from a sequence: enables
 *   ctx.ids and the acknowledged-insert check;
 *   fingerprint: an SQL expression over the row whose value at insert is given to ctx.ids.noteInserted(id, fingerprint)
 * and that updates leave alone
 * @property {string} [fill]           the mix that grows the table, for an experiment's prepare phase
 * @property {{ table: string }} [audit]  rows the requests report written (ctx.written) are counted against the table's
 *   rows at exit
 * @property {RequestTypeSpec[]} types
 * @property {Record<string, RequestFunction>} requests
 * @property {Record<string, import('./options.js').OptionSpec>} [options]  the workload's own flags of pgloadgen run (a
 *   plan's options:)
 * @property {(given: { options: Record<string, unknown>, defines: Readonly<Record<string, string>>,
 *     seed: number | null }) => unknown} [configure]
 *   at start, before any connection: checks the options and -D settings (throw to refuse them) and returns ctx.config;
 *   seed: the run's --seed (a plan's seed:), null when none was given. An option of the module named seed is given
 * --seed's value on the command line
 * @property {(config: any) => number} [clients]   the number of clients the workload runs (then -c is refused)
 * @property {(config: any) => Pacing | null} [pacing]   each client runs one request per interval, on a schedule
 * @property {(config: any) => Ramp | null} [ramp]   clients start one by one rather than all at once
 * @property {(config: any) => WorkloadStatistic[]} [statistics]  figures of the server the lab polls and exports
 * @property {(context: MaintenanceContext) => unknown} [maintain]  run every maintainEvery seconds on a connection of
 *   its own (partitions made ahead, say)
 * @property {number} [maintainEvery]  seconds, default 10
 * @property {(context: SetupContext) => unknown} [setup]       once per run, after the schema; what it returns is
 *   ctx.shared
 * @property {(ctx: ClientContext) => unknown} [initClient]    once per client, before its first request
 */

/**
 * @typedef {object} Pacing
 * @property {number} intervalS               each client's period
 * @property {(clientId: number) => number} [offsetS]  when in the period a client's first request falls, after it
 *   starts (default 0)
 */

/**
 * @typedef {object} Ramp
 * @property {number} everyS      a new client starts this often…
 * @property {number} [jitterS]   give or take up to this much
 */

/**
 * @typedef {object} WorkloadStatistic
 * @property {string} name        a metric name, pgloadgen_workload_… is advised
 * @property {string} help
 * @property {string} sql         one row with a numeric column "value"
 */

/**
 * @typedef {object} MaintenanceContext
 * @property {(text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>} sql
 * @property {unknown} config
 * @property {unknown} shared
 * @property {import('../log.js').Logger} log
 */

/**
 * @typedef {object} RequestTypeSpec
 * @property {string} name
 * @property {number} weight          default weight in the mix
 * @property {string} [expectedError] SQLSTATE of failures that are expected (an error probe): counted, never unexpected
 */

/**
 * A request: resolves when done; false means it found nothing to work on
 * (counted as not_found, not as a failure); a rejection is a failure.
 * @typedef {(db: import('./db.js').Db, ctx: ClientContext) => Promise<boolean | void>} RequestFunction
 */

/**
 * @typedef {object} SetupContext
 * @property {(text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>} sql  runs a statement on
 *   the setup connection, returns its rows
 * @property {Readonly<Record<string, string>>} defines   -D NAME=VALUE
 * @property {unknown} config      what configure() returned
 * @property {number} concurrency   the clients the run starts with (or ramps to)
 * @property {import('../log.js').Logger} log
 */

/**
 * What a workload's requests see of the dense-id bookkeeping (ctx.ids).
 * @typedef {object} IdBookkeeping
 * @property {number} maxId
 * @property {() => number} randomId   uniformly in [1, maxId]
 * @property {(maxId: number) => void} noteMaxId
 * @property {(id: number, fingerprint?: number) => void} noteInserted
 * @property {(err: unknown, fingerprint?: number) => void} insertFailed  an insert got no acknowledgement: in doubt
 *   unless the server refused it
 */

/**
 * @typedef {object} ClientContext
 * @property {number} clientId      0 for the first client, 1 for the next, …
 * @property {() => number} random   uniform in [0, 1), the client's own: seeded from --seed and clientId when the run
 *   has a seed, else Math.random;
 *   draw every random value of a request from it, so that with a seed each client's rows repeat
 * @property {unknown} config       what configure() returned
 * @property {unknown} shared       what setup() returned
 * @property {Record<string, any>} state   this client's own, kept across reconnects
 * @property {Readonly<Record<string, string>>} defines
 * @property {IdBookkeeping} ids   the dense-id bookkeeping (only with `ids`)
 * @property {(rows: number, points?: number) => void} written  rows (and points: metric values) the request wrote, once
 *   acknowledged
 * @property {(err: unknown, rows: number, probe: () => { text: string, params: unknown[] }) => void} writeFailed
 *   a write of rows failed with err: when err leaves its outcome unknown (the connection broke before the
 *   acknowledgement), probe() is kept and run at exit, a statement giving one row with a column n: how many of
 *   those rows the audited table holds
 * @property {() => Promise<import('./db.js').Db>} connect   a connection of the request's own to the same server, with
 *   the run's settings and protocol (close() it): a client that dials per request
 */

/**
 * A workload as the generator uses it: checked, with its types in order.
 * @typedef {object} Workload
 * @property {string} name
 * @property {string} description
 * @property {string} source                where it came from: "built-in", a file, or the scripts
 * @property {string[]} types
 * @property {number[]} weights             default weights, by type index
 * @property {Array<string | null>} expectedErrors  by type index
 * @property {RequestFunction[]} requests   by type index
 * @property {string | null} schemaSql
 * @property {string | null} dropSql
 * @property {string | null} table
 * @property {string | null} idTable
 * @property {string | null} idFingerprint  an SQL expression over an idTable row: what the insert check compares
 * @property {string | null} fill
 * @property {string | null} auditTable    rows reported written are counted against it
 * @property {Readonly<Record<string, string>>} defines  -D settings it was configured with
 * @property {Record<string, import('./options.js').OptionSpec>} optionSpecs
 * @property {Record<string, unknown>} options   their values
 * @property {unknown} config              what configure() returned
 * @property {number | null} clients       fixed by the workload, or null (-c)
 * @property {Pacing | null} pacing
 * @property {Ramp | null} ramp
 * @property {WorkloadStatistic[]} statistics
 * @property {((context: MaintenanceContext) => Promise<unknown>) | null} maintain
 * @property {number} maintainEveryS
 * @property {(context: SetupContext) => Promise<unknown>} setup
 * @property {(ctx: ClientContext) => Promise<void>} initClient
 * @property {boolean} scripts              made of pgbench scripts
 */
