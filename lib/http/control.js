import { createHash, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'
import { reply, readBody, BodyTooLarge, replyTooLarge, DEFAULT_LIMITS } from './http-server.js'
import { shareOfTotal } from '../scale/share.js'
import { checkSetting } from '../config/run-setting-checks.js'
import { InputError } from '../errors.js'
const RATE_WINDOW_S = 10

/**
 * Whether an address only this machine can reach.
 * @param {string} host
 */
export function isLoopback(host) {
  if (host === 'localhost') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return host === '::1'
}

/**
 * Per-type request rates over the last RATE_WINDOW_S seconds, from one
 * sample of the done counters a second.
 */
export class RateWindow {
  /** @param {import('../metrics/request-stats.js').RequestStats} stats */
  constructor(stats) {
    this.stats = stats
    /** @type {Array<{ at: number, done: Float64Array }>} */
    this.samples = []
    this.sample()
    this.timer = setInterval(() => this.sample(), 1000)
    this.timer.unref()
  }

  sample() {
    this.samples.push({ at: Date.now(), done: Float64Array.from(this.stats.done) })
    if (this.samples.length > RATE_WINDOW_S + 1) this.samples.shift()
  }

  /** @returns {Record<string, number>} */
  rates() {
    const first = this.samples[0]
    const seconds = Math.max(0.001, (Date.now() - first.at) / 1000)
    return Object.fromEntries(
      this.stats.types.map((type, i) => [type, Math.round((10 * (this.stats.done[i] - first.done[i])) / seconds) / 10])
    )
  }

  stop() {
    clearInterval(this.timer)
  }
}

/**
 * @typedef {object} ControlOptions
 * @property {import('../generator/generator.js').LoadGenerator} generator
 * @property {import('../metrics/request-stats.js').RequestStats} stats
 * @property {import('../recorder/event-log.js').EventLog} events
 * @property {string} host             where the HTTP server listens
 * @property {string | null} token     required for changes unless host is loopback
 * @property {() => Record<string, unknown>} describe  fixed facts of the run for /status
 * @property {import('../log.js').Logger} log
 * @property {number} [maxBodyBytes]  largest body of a POST (default 64 KiB)
 * @property {import('../scale/share.js').Share | null} [share]  an instance of a split load: POST /concurrency gives
 *   the total, this instance runs its share
 */

/**
 * SHA-256 of a text: digests of equal length, whatever the lengths of the
 * texts, so that comparing them in constant time says nothing of the length.
 * @param {string} text
 */
function digest(text) {
  return createHash('sha256').update(text, 'utf8').digest()
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} code
 * @param {unknown} body
 */
const json = (res, code, body) => reply(res, code, JSON.stringify(body) + '\n', 'application/json')

/**
 * The live-control routes of a run: GET /status, POST /concurrency,
 * POST /pause, POST /resume. Every change is an event.
 * @param {ControlOptions} options
 * @returns {{ routes: import('./http-server.js').Routes, stop: () => void }}
 */
export function controlRoutes({
  generator,
  stats,
  events,
  host,
  token,
  describe,
  log,
  maxBodyBytes = DEFAULT_LIMITS.maxBodyBytes,
  share = null
}) {
  const started = Date.now()
  const window = new RateWindow(stats)
  const allowed = accessCheck(host, token)

  const status = () => ({
    ...describe(),
    concurrency: generator.concurrency,
    connections: generator.connections,
    paused: generator.paused,
    uptime_s: Math.round((Date.now() - started) / 100) / 10,
    rates: window.rates(),
    last_events: events.recent.slice(-10)
  })

  /**
   * Pausing twice is one change: only a change of state is an event.
   * @param {'pause' | 'resume'} action
   * @returns {Record<string, import('./http-server.js').Handler>}
   */
  const pauseRoute = action => ({
    POST: async (req, res) => {
      if (!allowed(req, res)) return
      const wasPaused = generator.paused
      if (action === 'pause') generator.pause()
      else generator.resume()
      if (generator.paused !== wasPaused) {
        log.info(action === 'pause' ? 'paused' : 'resumed')
        await events.record({ kind: 'point', action })
      }
      json(res, 200, { paused: generator.paused })
    }
  })

  return {
    stop: () => window.stop(),
    routes: {
      '/status': { GET: (_req, res) => json(res, 200, status()) },
      '/concurrency': {
        POST: concurrencyHandler({ generator, events, log, share, maxBodyBytes, allowed })
      },
      '/pause': pauseRoute('pause'),
      '/resume': pauseRoute('resume')
    }
  }
}

/**
 * Whether a request may change the run: always on a loopback address, else
 * only with the bearer token given at start; a refusal is answered.
 * @param {string} host
 * @param {string | null} token
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => boolean}
 */
function accessCheck(host, token) {
  const needsToken = !isLoopback(host)
  // The CLI refuses an empty token at start; kept here too, because an empty
  // token would match a request with no Authorization header at all.
  const secret = token === null || token === '' ? null : digest(token)

  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {import('node:http').ServerResponse} res
   */
  return (req, res) => {
    if (!needsToken) return true
    if (secret === null) {
      reply(
        res,
        403,
        JSON.stringify({
          error: 'control is disabled on a non-loopback address unless a token is given at start (--control-token)'
        }) + '\n',
        'application/json'
      )
      return false
    }
    // Only the Bearer scheme: a bare token in the header is not accepted.
    const bearer = /^Bearer +(\S+) *$/i.exec(String(req.headers.authorization ?? ''))
    // Compared as digests, in constant time: neither the token's characters
    // nor its length show in how long a refusal takes.
    const matches = timingSafeEqual(digest(bearer ? bearer[1] : ''), secret)
    if (!bearer || !matches) {
      res.setHeader('WWW-Authenticate', 'Bearer')
      reply(res, 401, JSON.stringify({ error: 'a valid bearer token is required' }) + '\n', 'application/json')
      return false
    }
    return true
  }
}

/**
 * POST /concurrency: the run's new concurrency (the total of every
 * instance with --instance), checked as -c is, and recorded as an event.
 * @param {Pick<ControlOptions, 'generator' | 'events' | 'log' | 'share'> & { maxBodyBytes: number,
 *     allowed: ReturnType<typeof accessCheck> }} options
 * @returns {import('./http-server.js').Handler}
 */
function concurrencyHandler({ generator, events, log, share, maxBodyBytes, allowed }) {
  return async (req, res) => {
    if (!allowed(req, res)) return
    let text
    try {
      text = await readBody(req, maxBodyBytes)
    } catch (err) {
      if (err instanceof BodyTooLarge) return replyTooLarge(res, err.limit)
      throw err
    }
    let body
    try {
      body = JSON.parse(text)
    } catch {
      return json(res, 400, {
        error: 'expected a JSON body like {"concurrency": 16}',
        code: 'PGLG_INVALID_REQUEST'
      })
    }
    // the rule and the wording of -c and a plan's concurrency (config/run-setting-checks.js)
    let next
    try {
      next = /** @type {number} */ (checkSetting('concurrency', body?.concurrency, 'api'))
    } catch (err) {
      if (err instanceof InputError) return json(res, 400, { error: err.message, code: err.code })
      throw err
    }
    if (share && next < share.parts) {
      return json(res, 400, {
        error: `concurrency is the total of ${share.parts} instances, each needs at least one client: at least ${share.parts}`,
        code: 'PGLG_INVALID_NUMBER'
      })
    }
    const previous = generator.concurrency
    // an instance runs its exact share of the total, as at start
    const own = share ? shareOfTotal(next, share) : next
    generator.setConcurrency(own)
    log.info(
      `concurrency changed from ${previous} to ${own}${share ? ` (of ${next} over ${share.parts} instances)` : ''}`
    )
    await events.record({
      kind: 'point',
      action: 'concurrency',
      detail: { from: previous, to: own, ...(share && { total: next }) }
    })
    json(res, 200, { concurrency: own, previous, ...(share && { total: next }) })
  }
}
