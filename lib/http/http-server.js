import http from 'node:http'
import { InputError } from '../errors.js'

/**
 * @typedef {(req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>} Handler
 * @typedef {Record<string, Record<string, Handler>>} Routes  path -> method -> handler
 */

/**
 * What one request may take. A sender that trickles its headers or its body
 * gets 408 and a closed connection; a body over the limit gets 413 and is
 * not read.
 * @typedef {object} Limits
 * @property {number} headersTimeoutMs   to receive the headers
 * @property {number} requestTimeoutMs   to receive the whole request, body included
 * @property {number} checkIntervalMs    how often the two are checked
 * @property {number} maxBodyBytes       largest request body
 */

/** @type {Limits} */
export const DEFAULT_LIMITS = Object.freeze({
  headersTimeoutMs: 10000,
  requestTimeoutMs: 30000,
  checkIntervalMs: 1000,
  maxBodyBytes: 64 * 1024
})

export class BodyTooLarge extends Error {
  /** @param {number} limit */
  constructor(limit) {
    super(`request body too large: at most ${limit} bytes`)
    this.name = 'BodyTooLarge'
    this.limit = limit
  }
}

/**
 * Refuses a request whose body is over the limit: 413, one line of JSON, and
 * the connection closed so that the rest is never read.
 * @param {http.ServerResponse} res
 * @param {number} limit
 */
export function replyTooLarge(res, limit) {
  if (res.headersSent || res.destroyed) return
  res.setHeader('Connection', 'close')
  reply(
    res,
    413,
    JSON.stringify({ error: `request body too large: at most ${limit} bytes` }) + '\n',
    'application/json'
  )
}

/**
 * A request's body as UTF-8 text, read up to the server's limit. Throws
 * BodyTooLarge as soon as the limit is passed (nothing more is read), or the
 * error of a request that was aborted or timed out.
 * @param {http.IncomingMessage} req
 * @param {number} [limit]
 */
export async function readBody(req, limit = DEFAULT_LIMITS.maxBodyBytes) {
  const declared = Number(req.headers['content-length'])
  if (declared > limit) throw new BodyTooLarge(limit)
  /** @type {Buffer[]} */
  const chunks = []
  let size = 0
  for await (const chunk of req) {
    size += chunk.length
    if (size > limit) throw new BodyTooLarge(limit)
    chunks.push(chunk)
  }
  // decoded whole: a character split across two chunks stays one character
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Starts the HTTP server of a run. A port in use is a usage error, reported
 * before anything else starts.
 * @param {{ host: string, port: number, routes: Routes, log: import('../log.js').Logger,
 *     limits?: Partial<Limits> }} options
 *   limits: DEFAULT_LIMITS unless given (tests give short ones)
 * @returns {Promise<{ server: http.Server, port: number, close: () => Promise<void>, limits: Limits }>}
 */
export async function startHttpServer({ host, port, routes, log, limits: given = {} }) {
  const limits = { ...DEFAULT_LIMITS, ...given }
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs
    },
    (req, res) => {
      // A declared body over the limit is refused before any route reads it.
      if (Number(req.headers['content-length']) > limits.maxBodyBytes) return replyTooLarge(res, limits.maxBodyBytes)
      const url = new URL(req.url ?? '/', 'http://localhost')
      const methods = routes[url.pathname]
      if (!methods) return reply(res, 404, 'not found\n')
      const handler = methods[req.method ?? 'GET']
      if (!handler) {
        res.setHeader('Allow', Object.keys(methods).join(', '))
        return reply(res, 405, 'method not allowed\n')
      }
      Promise.resolve()
        .then(() => handler(req, res))
        .catch(err => {
          if (err instanceof BodyTooLarge) return replyTooLarge(res, err.limit)
          // aborted by the sender, or cut by the request timeout (408 sent): nothing to answer
          if (req.destroyed || res.destroyed) return
          log.warn(`HTTP ${req.method} ${url.pathname} failed: ${err.message}`)
          if (!res.headersSent) reply(res, 500, 'internal error\n')
        })
    }
  )
  server.keepAliveTimeout = 65000
  await new Promise((resolve, reject) => {
    server.once('error', (/** @type {NodeJS.ErrnoException} */ err) => {
      if (err.code === 'EADDRINUSE')
        reject(
          new InputError(`HTTP port ${port} on ${host} is already in use (choose another with --http-port)`, {
            code: 'PGLG_CANNOT_LISTEN',
            cause: err
          })
        )
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
        reject(
          new InputError(`cannot listen on ${host}: no such local address`, { code: 'PGLG_CANNOT_LISTEN', cause: err })
        )
      else if (err.code === 'EACCES')
        reject(new InputError(`not allowed to listen on ${host}:${port}`, { code: 'PGLG_CANNOT_LISTEN', cause: err }))
      else reject(err)
    })
    server.listen(port, host, () => resolve(undefined))
  })
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  return {
    server,
    limits,
    port: address.port,
    close: () =>
      new Promise(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {string} body
 * @param {string} [contentType]
 */
export function reply(res, status, body, contentType = 'text/plain; charset=utf-8') {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) })
  res.end(body)
}
