// The live-control routes of a running generator (/status, /concurrency,
// /pause, /resume) and the events file it appends to, as a user reaches them.
import { readFile } from 'node:fs/promises'
import { scrape, sampleValue } from './prom.js'
import { REQUEST_TYPES } from './summary.js'
import { waitFor } from './cli.js'

/**
 * The base URL of the run's HTTP server, from its /metrics URL.
 * @param {string} metricsUrl
 */
export function baseOf(metricsUrl) {
  return metricsUrl.replace(/\/metrics$/, '')
}

/**
 * @typedef {object} Reply
 * @property {number} status
 * @property {string} text
 * @property {any} json   the parsed body, or null
 * @property {Headers} headers
 */

/**
 * @param {string} url
 * @param {RequestInit} init
 * @returns {Promise<Reply>}
 */
async function request(url, init) {
  const response = await fetch(url, init)
  const text = await response.text()
  let json = null
  try {
    json = JSON.parse(text)
  } catch {
    // not JSON
  }
  return { status: response.status, text, json, headers: response.headers }
}

/**
 * POSTs to a control route; body: an object sent as JSON, or a raw string.
 * @param {string} base
 * @param {string} route   e.g. /pause
 * @param {{ body?: unknown, token?: string, authorization?: string }} [options]
 */
export function post(base, route, { body, token, authorization } = {}) {
  /** @type {Record<string, string>} */
  const headers = {}
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  if (token !== undefined) headers.Authorization = `Bearer ${token}`
  if (authorization !== undefined) headers.Authorization = authorization
  return request(`${base}${route}`, {
    method: 'POST',
    headers,
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) })
  })
}

/**
 * POSTs and insists on 200.
 * @param {string} base
 * @param {string} route
 * @param {{ body?: unknown, token?: string }} [options]
 */
export async function control(base, route, options) {
  const reply = await post(base, route, options)
  if (reply.status !== 200) throw new Error(`POST ${route}: ${reply.status} ${reply.text}`)
  return reply.json
}

/**
 * GET /status.
 * @param {string} base
 */
export async function status(base) {
  const reply = await request(`${base}/status`, { method: 'GET' })
  if (reply.status !== 200) throw new Error(`GET /status: ${reply.status} ${reply.text}`)
  return reply.json
}

/**
 * Totals of started and done requests, from /metrics.
 * @param {string} metricsUrl
 */
export async function requestTotals(metricsUrl) {
  const { families } = await scrape(metricsUrl)
  const sum = (/** @type {string} */ name) =>
    REQUEST_TYPES.reduce((n, type) => n + (sampleValue(families, name, { type }) ?? 0), 0)
  return { started: sum('pgloadgen_nqueries_started'), done: sum('pgloadgen_nqueries_done') }
}

/**
 * Pauses the generator and waits until the requests in flight at the pause
 * are done, so that nothing reaches the database afterwards.
 * @param {string} metricsUrl
 */
export async function pauseAndDrain(metricsUrl) {
  await control(baseOf(metricsUrl), '/pause')
  let previous = -1
  return waitFor(
    async () => {
      const { started, done } = await requestTotals(metricsUrl)
      const settled = started === done && done === previous
      previous = done
      return settled && { started, done }
    },
    { what: 'the requests in flight at the pause to finish', intervalMs: 200, timeoutMs: 20000 }
  )
}

/**
 * The events of an NDJSON events file; [] when it does not exist yet.
 * @param {string} file
 * @returns {Promise<any[]>}
 */
export async function readEvents(file) {
  let text
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return []
    throw err
  }
  return text
    .split('\n')
    .filter(line => line.trim() !== '')
    .map(line => JSON.parse(line))
}
