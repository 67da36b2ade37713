import http from 'node:http'
import { UsageError } from '../errors.js'

/**
 * @typedef {(req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>} Handler
 * @typedef {Record<string, Record<string, Handler>>} Routes  path -> method -> handler
 */

/**
 * Starts the HTTP server of a run. A port in use is a usage error, reported
 * before anything else starts.
 * @param {{ host: string, port: number, routes: Routes, log: import('../log.js').Logger }} options
 * @returns {Promise<{ server: http.Server, port: number, close: () => Promise<void> }>}
 */
export async function startHttpServer ({ host, port, routes, log }) {
  const server = http.createServer((req, res) => {
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
        log.warn(`HTTP ${req.method} ${url.pathname} failed: ${err.message}`)
        if (!res.headersSent) reply(res, 500, 'internal error\n')
      })
  })
  server.keepAliveTimeout = 65000
  await new Promise((resolve, reject) => {
    server.once('error', (/** @type {NodeJS.ErrnoException} */ err) => {
      if (err.code === 'EADDRINUSE') reject(new UsageError(`HTTP port ${port} on ${host} is already in use (choose another with --http-port)`))
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') reject(new UsageError(`cannot listen on ${host}: no such local address`))
      else if (err.code === 'EACCES') reject(new UsageError(`not allowed to listen on ${host}:${port}`))
      else reject(err)
    })
    server.listen(port, host, () => resolve(undefined))
  })
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  return {
    server,
    port: address.port,
    close: () => new Promise(resolve => {
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
export function reply (res, status, body, contentType = 'text/plain; charset=utf-8') {
  res.writeHead(status, { 'Content-Type': contentType })
  res.end(body)
}
