import { setTimeout as sleep } from 'node:timers/promises'
import { connectWithin } from '../pg/connection.js'
import { pollQueries } from './queries.js'
import { parseRows } from './rows.js'
import { countsOf, forcedOf, paramsOf } from './autovacuum-sql.js'
import { keyOf } from './autovacuum-forecast.js'
import { outlookOf, withSettings } from './autovacuum-whatif.js'

// The forecast of `pgloadgen forecast`: the rule's inputs read twice,
// watchS apart, on one connection; the rates between them; each table's
// outlook under the server's settings and under the changes given.

const CONNECT_MS = 15000
const STATEMENT_MS = 10000

/**
 * A table's forecast, as the command prints it.
 * @typedef {object} TableForecast
 * @property {string} table            schema.name
 * @property {import('./autovacuum-rule.js').CounterRates} rates   per second, over the watch
 * @property {boolean} vacuumed        a vacuum reset its counters during the watch: the rates are unknown
 * @property {boolean} enabled         autovacuum is on for it (off: only the forced vacuums come)
 * @property {import('./autovacuum-whatif.js').TableOutlook} today
 * @property {import('./autovacuum-whatif.js').TableOutlook | null} changed   under --set (null: none given)
 */

/**
 * @param {string} connectionString
 * @param {{ watchS: number, changes: Partial<Record<keyof typeof import('./autovacuum-whatif.js').WHATIF_SETTINGS,
 *     number>>, table: string | null }} options
 * @returns {Promise<TableForecast[]>}
 */
export async function watchForecast(connectionString, { watchS, changes, table }) {
  const client = await connectWithin(
    { connectionString, applicationName: 'pgloadgen-forecast', statementTimeoutMs: STATEMENT_MS },
    CONNECT_MS
  )
  try {
    const version = Number((await client.query('SHOW server_version_num')).rows[0].server_version_num)
    const queries = pollQueries(version).filter(q => ['autovacuum_inputs', 'xid_tables', 'settings'].includes(q.name))
    const read = async () => {
      /** @type {Record<string, import('./rows.js').Row[]>} */
      const sections = {}
      for (const q of queries) sections[q.name] = parseRows(q.name, (await client.query(q.sql)).rows)
      return sections
    }
    const before = await read()
    await sleep(watchS * 1000)
    const after = await read()
    const naptimeS = Number(after.settings[0]?.autovacuum_naptime_seconds ?? 60)
    const any = Object.keys(changes).length > 0
    return after.autovacuum_inputs
      .filter(row => table === null || table === row.relname || table === `${row.schemaname}.${row.relname}`)
      .map(row => forecastOf(row, { before, after, watchS, naptimeS, changes: any ? changes : null }))
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * One table's forecast from the two reads.
 * @param {import('./rows.js').Row} row   of the second read
 * @param {{ before: Record<string, import('./rows.js').Row[]>, after: Record<string, import('./rows.js').Row[]>,
 *     watchS: number, naptimeS: number, changes: Parameters<typeof withSettings>[2] | null }} context
 * @returns {TableForecast}
 */
function forecastOf(row, { before, after, watchS, naptimeS, changes }) {
  const key = keyOf(/** @type {any} */ (row))
  const earlier = before.autovacuum_inputs.find(r => keyOf(/** @type {any} */ (r)) === key)
  const counts = countsOf(row, forcedIn(after, key))
  const first = countsOf(earlier ?? row, forcedIn(before, key))
  const vacuumed =
    counts.deadTuples < first.deadTuples || (counts.insertsSinceVacuum ?? 0) < (first.insertsSinceVacuum ?? 0)
  const per = (/** @type {number} */ a, /** @type {number} */ b) => (vacuumed ? 0 : Math.max(0, (b - a) / watchS))
  const rates = {
    deadTuples: per(first.deadTuples, counts.deadTuples),
    inserts: per(first.insertsSinceVacuum ?? 0, counts.insertsSinceVacuum ?? 0),
    xids: Math.max(0, (first.xidsToForce - counts.xidsToForce) / watchS) || 0,
    mxids: Math.max(0, (first.mxidsToForce - counts.mxidsToForce) / watchS) || 0
  }
  const params = paramsOf(row)
  const other = changes && withSettings(params, naptimeS, changes)
  return {
    table: `${row.schemaname}.${row.relname}`,
    rates,
    vacuumed,
    enabled: params.enabled,
    today: outlookOf(params, counts, rates, naptimeS),
    changed: other && outlookOf(other.params, counts, rates, other.naptimeS)
  }
}

/**
 * The table's distances to the forced vacuums in a read.
 * @param {Record<string, import('./rows.js').Row[]>} sections
 * @param {string} key
 */
function forcedIn(sections, key) {
  return forcedOf(sections.xid_tables.find(r => keyOf(/** @type {any} */ (r)) === key))
}
