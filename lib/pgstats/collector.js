// Polls PostgreSQL's statistics every intervalS seconds over one dedicated
// connection and exports them as Prometheus metrics.
//
// It stays off the generator's request path: its own connection, its own
// timer, and scrapes read the rows of the last polls without querying. Each
// statement runs under statement_timeout = min(intervalS, 5) s; one that
// fails or times out is counted (pgloadgen_pgstats_poll_errors_total{query})
// and the poll goes on with the next. A poll still running when the next is
// due makes that tick skip (pgloadgen_pgstats_polls_skipped_total): polls
// never queue. A dead connection is dropped and reopened at the next tick.
// Rows not refreshed for max(5 intervals, 30 s) are no longer exported.
import { performance } from 'node:perf_hooks'
import { redactUrl } from '../config/pg-url.js'
import { openStatsConnection, timedQuery, isDeadConnection } from './collector-connection.js'
import { pollQueries, QUERY_NAMES, OLDEST_SUPPORTED } from './queries.js'
import { parseRows } from './rows.js'
import { registerPgMetrics } from './metrics.js'
import { METRIC_SPECS, EXACT_BLOAT_SPECS } from './metric-specs.js'
import { registerSelfMetrics } from './self-metrics.js'
import { buildSnapshot } from './snapshot.js'
import { FIND_EXTENSION, EXACT_EVERY_MS, scanExactBloat } from './pgstattuple.js'
import { AutovacuumForecast, keyOf, serverClock } from './autovacuum-forecast.js'
import { forcedOf } from './autovacuum-sql.js'

/**
 * @typedef {object} StatsCollectorOptions
 * @property {string} connectionString
 * @property {number} [intervalS]      seconds between polls, default 10
 * @property {import('prom-client').Registry} registry
 * @property {import('../log.js').Logger} log
 * @property {import('./pgstattuple.js').PgstattupleMode} [pgstattuple]   also exact bloat from pgstattuple
 *   (scans the relations); 'approx': the tables' from pgstattuple_approx
 */

export class StatsCollector {
  /** @param {StatsCollectorOptions} options */
  constructor({ connectionString, intervalS = 10, registry, log, pgstattuple = false }) {
    if (!(intervalS > 0)) throw new Error(`intervalS must be positive, got ${intervalS}`)
    this.connectionString = connectionString
    this.display = display(connectionString)
    this.password = password(connectionString)
    this.log = log
    this.intervalMs = intervalS * 1000
    this.statementTimeoutMs = Math.min(intervalS, 5) * 1000
    // Beyond the server's own timeout, the client gives up on a stuck server.
    this.guardMs = this.statementTimeoutMs + 2000
    this.staleMs = Math.max(5 * this.intervalMs, 30000)
    this.pgstattuple = pgstattuple

    /** @type {Map<string, { rows: import('./rows.js').Row[], at: number }>} */
    this.sections = new Map()
    this.metrics = registerSelfMetrics(registry, pgstattuple ? [...QUERY_NAMES, 'pgstattuple'] : QUERY_NAMES)
    const source = { rows: (/** @type {string} */ section) => this.rows(section) }
    registerPgMetrics(registry, source, pgstattuple ? [...METRIC_SPECS, ...EXACT_BLOAT_SPECS] : METRIC_SPECS)

    /** @type {import('./collector-connection.js').StatsClient | null} */
    this.client = null
    /** @type {number | null} */
    this.serverVersionNum = null
    this.datname = ''
    /** @type {import('./queries.js').PollQuery[]} */
    this.queries = []
    /** @type {string | null} */
    this.pgstattupleSchema = null
    this.lastExactAt = -Infinity
    /** @type {NodeJS.Timeout | null} */
    this.timer = null
    /** @type {Promise<void> | null} */
    this.polling = null
    this.stopping = false
    this.connectedOnce = false
    /** @type {number | null} */
    this.lastPollAt = null
    /** @type {Set<string>} statements failing now: logged once until they succeed again */
    this.failing = new Set()
    // when autovacuum next takes each table
    this.forecast = new AutovacuumForecast()
  }

  /** Starts polling; resolves after the first poll (whether it succeeded or not). */
  async start() {
    if (this.timer || this.stopping) return
    this.timer = setInterval(() => {
      this.tick()
    }, this.intervalMs)
    this.timer.unref()
    await this.tick()
  }

  /** Stops polling, cuts a poll under way short and closes the connection. */
  async stop() {
    this.stopping = true
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    const closing = this.dropConnection()
    if (this.polling) await this.polling
    await closing
  }

  /**
   * The last figures, or null before any poll returned data.
   * @returns {import('./snapshot.js').StatsSnapshot | null}
   */
  latest() {
    if (this.lastPollAt === null) return null
    return buildSnapshot({
      rows: section => this.rows(section),
      time: this.lastPollAt,
      serverVersionNum: this.serverVersionNum,
      datname: this.datname
    })
  }

  /**
   * Fresh rows of a section; [] when it never succeeded or is stale.
   * @param {string} section
   */
  rows(section) {
    const entry = this.sections.get(section)
    if (!entry) return []
    const limit =
      this.staleMs +
      (section.startsWith('pgstattuple') ? EXACT_EVERY_MS : 0) +
      (this.queries.find(q => q.name === section)?.everyMs ?? 0)
    return Date.now() - entry.at > limit ? [] : entry.rows
  }

  /** Starts a poll, or counts a skip when the previous one still runs. */
  tick() {
    if (this.stopping) return Promise.resolve()
    if (this.polling) {
      this.metrics.skipped.inc()
      this.log.debug('pg stats: previous poll still running, this one skipped')
      return this.polling
    }
    this.polling = this.poll()
      .catch(err => this.log.warn(`pg stats: poll failed unexpectedly: ${this.clean(err)}`, 'PGLG_W_STATS_POLL_FAILED'))
      .finally(() => {
        this.polling = null
      })
    return this.polling
  }

  async poll() {
    const started = performance.now()
    let failures = 0
    try {
      const client = await this.connection()
      if (client === null) {
        failures++
        return
      }
      /**
       * @param {string} name @param {string} sql @param {unknown[]} [params]
       * @returns {Promise<import('./rows.js').Row[] | null>} null: failed, counted
       */
      const run = async (name, sql, params = []) => {
        if (this.stopping || client.broken) return null
        try {
          const rows = await timedQuery(client, sql, params, this.guardMs)
          this.recovered(name)
          return rows
        } catch (err) {
          if (this.stopping) return null
          failures++
          this.metrics.errors.inc({ query: name })
          this.failed(name, err)
          if (isDeadConnection(client, err)) this.dropConnection()
          return null
        }
      }
      for (const query of this.queries) {
        const last = this.sections.get(query.name)?.at
        if (query.everyMs && last !== undefined && Date.now() - last < query.everyMs) continue
        const rows = await run(query.name, query.sql)
        if (rows !== null) this.store(query.name, parseRows(query.name, rows))
        if (client.broken || this.stopping) return
      }
      this.forecastAutovacuum()
      if (this.pgstattupleSchema !== null && Date.now() - this.lastExactAt >= EXACT_EVERY_MS) {
        this.lastExactAt = Date.now()
        const exact = await scanExactBloat({
          schema: this.pgstattupleSchema,
          datname: this.datname,
          run: (sql, params) => run('pgstattuple', sql, params),
          approx: this.pgstattuple === 'approx'
        })
        if (exact) {
          this.store('pgstattuple_tables', exact.tables)
          this.store('pgstattuple_indexes', exact.indexes)
        }
      }
    } finally {
      if (!this.stopping) {
        this.metrics.polls.inc()
        this.metrics.duration.observe((performance.now() - started) / 1000)
        if (failures === 0) this.metrics.lastSuccess.set(Date.now() / 1000)
      }
    }
  }

  /**
   * @param {string} section
   * @param {import('./rows.js').Row[]} rows
   */
  store(section, rows) {
    this.sections.set(section, { rows, at: Date.now() })
    this.lastPollAt = Date.now() / 1000
  }

  /**
   * The autovacuum forecast from this poll's rows (autovacuum-forecast.js):
   * the rule's inputs, the distances to the forced vacuums, the naptime
   * (PostgreSQL's default, 60 s, until the settings are read), and the
   * autovacuum workers at work, whose starts are the launcher's visits.
   */
  forecastAutovacuum() {
    const inputs = withSizes(this.rows('autovacuum_inputs'), this.rows('relation_size'))
    if (inputs.length === 0) return
    const nowS = Date.now() / 1000
    this.forecast.noteAtWork(nowS, autovacuumsAtWork(this.rows('progress_vacuum')), lastAutovacuumEnds(inputs))
    const forced = new Map(this.rows('xid_tables').map(row => [keyOf(/** @type {any} */ (row)), forcedOf(row)]))
    const clock = serverClock(this.rows('settings')[0])
    this.store('autovacuum_forecast', this.forecast.observe(nowS, inputs, forced, clock))
  }

  /**
   * The open connection, or a new one with the statements for its server's
   * version; null when connecting failed (counted as query="connect").
   * @returns {Promise<import('./collector-connection.js').StatsClient | null>}
   */
  async connection() {
    if (this.client && !this.client.broken) return this.client
    await this.dropConnection()
    /** @type {import('./collector-connection.js').StatsClient | null} */
    let client = null
    try {
      client = await openStatsConnection({
        connectionString: this.connectionString,
        statementTimeoutMs: this.statementTimeoutMs,
        connectTimeoutMs: Math.max(this.statementTimeoutMs, 1000)
      })
      const [info] = await timedQuery(
        client,
        "SELECT current_setting('server_version_num')::int AS version, current_database() AS datname",
        [],
        this.guardMs
      )
      const version = Number(info.version)
      /** @type {string | null} */
      let schema = null
      if (this.pgstattuple) {
        const [extension] = await timedQuery(client, FIND_EXTENSION, [], this.guardMs)
        schema = extension ? String(extension.schema) : null
        if (schema === null) {
          this.log.warn(
            `pg stats: --pgstattuple asked for, but the pgstattuple extension is not installed in ${info.datname} (CREATE EXTENSION pgstattuple); exact bloat figures are not collected`,
            'PGLG_W_STATS_LIMITED'
          )
        }
      }
      if (this.stopping) {
        await client.end().catch(() => {})
        return null
      }
      if (version < OLDEST_SUPPORTED) {
        this.log.warn(
          `pg stats: PostgreSQL ${version} is older than 12, which is not supported; statements that fail are counted`,
          'PGLG_W_STATS_LIMITED'
        )
      }
      this.serverVersionNum = version
      this.datname = String(info.datname)
      this.queries = pollQueries(version)
      this.pgstattupleSchema = schema
      this.client = client
      this.log.info(
        `pg stats: ${this.connectedOnce ? 'reconnected' : 'connected'} to ${this.display} (server_version_num ${version}), polling every ${this.intervalMs / 1000} s`
      )
      this.connectedOnce = true
      this.recovered('connect')
      return client
    } catch (err) {
      if (client) await client.end().catch(() => {})
      if (this.stopping) return null
      this.metrics.errors.inc({ query: 'connect' })
      this.failed('connect', err)
      return null
    }
  }

  /** Closes the connection, if any, without waiting long. */
  async dropConnection() {
    const client = this.client
    this.client = null
    if (!client) return
    client.broken = true
    await Promise.race([client.end().catch(() => {}), new Promise(resolve => setTimeout(resolve, 1000).unref())])
  }

  /**
   * @param {string} name
   * @param {unknown} err
   */
  failed(name, err) {
    const message = `pg stats: ${name} failed: ${this.clean(err)}`
    if (this.failing.has(name)) return this.log.debug(message)
    this.failing.add(name)
    this.log.warn(
      `${message} (counted in pgloadgen_pgstats_poll_errors_total; not logged again until it succeeds)`,
      'PGLG_W_STATS_POLL_FAILED'
    )
  }

  /** @param {string} name */
  recovered(name) {
    if (this.failing.delete(name)) this.log.info(`pg stats: ${name} succeeds again`)
  }

  /**
   * An error's message on one line, never with the password.
   * @param {unknown} err
   */
  clean(err) {
    const error = /** @type {{ message?: unknown, code?: unknown }} */ (err)
    let text = String(error?.message || error?.code || err).split('\n')[0]
    if (this.password) text = text.replaceAll(this.password, '***')
    return text
  }
}

/** @param {string} connectionString */
function display(connectionString) {
  try {
    return redactUrl(new URL(connectionString))
  } catch {
    return 'the PostgreSQL server'
  }
}

/** @param {string} connectionString */
function password(connectionString) {
  try {
    const url = new URL(connectionString)
    return url.password ? decodeURIComponent(url.password) : ''
  } catch {
    return ''
  }
}

/**
 * The rule's inputs, each with its table's size with its indexes, which
 * the forecast's duration scales with.
 * @param {import('./rows.js').Row[]} inputs
 * @param {import('./rows.js').Row[]} sizes   relation_size rows
 * @returns {Record<string, any>[]}
 */
function withSizes(inputs, sizes) {
  const bytes = new Map(sizes.map(row => [keyOf(/** @type {any} */ (row)), row.total_bytes]))
  return inputs.map(row => ({ ...row, total_bytes: bytes.get(keyOf(/** @type {any} */ (row))) ?? null }))
}

/**
 * The autovacuums at work in the progress view: each start a visit of the launcher.
 * @param {import('./rows.js').Row[]} progress   progress_vacuum rows
 * @returns {import('./autovacuum-forecast.js').AtWork[]}
 */
function autovacuumsAtWork(progress) {
  return progress.flatMap(vacuum =>
    vacuum.vacuum_mode !== 'manual' && typeof vacuum.query_start === 'number'
      ? [
          {
            datname: String(vacuum.datname),
            schemaname: String(vacuum.schemaname),
            relname: String(vacuum.relname),
            startedS: vacuum.query_start
          }
        ]
      : []
  )
}

/**
 * Each table's last autovacuum end (pg_stat_all_tables.last_autovacuum), by key.
 * @param {Record<string, any>[]} inputs
 * @returns {Map<string, number>}
 */
function lastAutovacuumEnds(inputs) {
  return new Map(
    inputs.flatMap(row =>
      typeof row.last_autovacuum_end === 'number' ? [[keyOf(/** @type {any} */ (row)), row.last_autovacuum_end]] : []
    )
  )
}
