import { AGENT_SERIES_SQL, POINTS, REGISTER_AGENT_SQL } from './schema.js'

// One agent of the fleet: its series, registered when it starts, and the
// points of one flush, written as COPY text.

// COPY data leaves in chunks of about this many characters.
const CHUNK_CHARS = 65536
// haggar's values: a random whole number below 1000. Their COPY text,
// with the row's end, made once.
const VALUES = Array.from({ length: 1000 }, (_, n) => `${n}\n`)

/**
 * @typedef {object} AgentSeries
 * @property {string[]} ids        the series' ids
 * @property {string[]} prefixes   each series' id and a tab: the start of its COPY row
 */

/**
 * Registers the agent's series (unless the fleet's were registered before
 * the load and its are there) and reads back their ids, in metric order.
 * @param {import('../db.js').Db} db
 * @param {number} agent
 * @param {import('./config.js').FleetConfig} config
 * @returns {Promise<AgentSeries>}
 */
export async function startAgent(db, agent, config) {
  const metrics = config.metricsPerAgent
  let ids = config.seriesRegistry === 'setup' ? await seriesIds(db, agent, metrics) : []
  if (ids.length < metrics) {
    await db.query(REGISTER_AGENT_SQL, [agent, metrics])
    ids = await seriesIds(db, agent, metrics)
  }
  if (ids.length !== metrics) throw new Error(`agent ${agent}: ${ids.length} of its ${metrics} series are registered`)
  return { ids, prefixes: ids.map(id => `${id}\t`) }
}

/**
 * @param {import('../db.js').Db} db
 * @param {number} agent
 * @param {number} metrics
 * @returns {Promise<string[]>}
 */
async function seriesIds(db, agent, metrics) {
  const result = await db.query(AGENT_SERIES_SQL, [agent, metrics], { rows: true })
  return (result.rows ?? []).map(row => String(row[0]))
}

/**
 * The COPY text of one flush: every series of the agent, one time stamp
 * (the flush's, as haggar sends one epoch per flush), a random value each.
 * @param {AgentSeries} series
 * @param {number} atMs
 * @param {() => number} [random]  the client's random numbers (ctx.random)
 * @returns {Generator<string>}
 */
export function* flushRows({ prefixes }, atMs, random = Math.random) {
  const stamp = `${new Date(atMs).toISOString()}\t`
  let text = ''
  for (let i = 0; i < prefixes.length; i++) {
    text += prefixes[i] + stamp + VALUES[(random() * 1000) | 0]
    if (text.length >= CHUNK_CHARS) {
      yield text
      text = ''
    }
  }
  if (text !== '') yield text
}

/**
 * A statement that counts the points of one flush the table holds: the
 * agent's series at the flush's time stamp. For a flush whose connection
 * broke before the acknowledgement.
 * @param {AgentSeries} series
 * @param {number} atMs
 */
export function flushProbe({ ids }, atMs) {
  return {
    text: `SELECT count(*) AS n FROM ${POINTS} WHERE time = $1::timestamptz AND series_id = ANY($2::bigint[])`,
    params: [new Date(atMs).toISOString(), ids]
  }
}
