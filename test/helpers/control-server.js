// The control routes on a real HTTP server, with a stand-in generator, for
// tests that talk to them over raw sockets: hostile bodies and headers,
// slow senders, oversized bodies.
import net from 'node:net'
import { startHttpServer } from '../../lib/http/http-server.js'
import { controlRoutes } from '../../lib/http/control.js'

/**
 * @param {import('tap').Test} t
 * @param {{ host?: string, token?: string | null,
 *     limits?: Partial<import('../../lib/http/http-server.js').Limits> }} [options]
 */
export async function startControlServer(t, { host = '127.0.0.1', token = null, limits = {} } = {}) {
  const generator = {
    concurrency: 4,
    connections: 4,
    paused: false,
    changes: 0,
    setConcurrency(/** @type {number} */ n) {
      this.concurrency = n
      this.changes++
    },
    pause() {
      if (!this.paused) this.changes++
      this.paused = true
    },
    resume() {
      if (this.paused) this.changes++
      this.paused = false
    }
  }
  const stats = { types: ['a'], done: new Float64Array(1) }
  const events = { recent: [], record: async () => {} }
  const log = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} }
  const control = controlRoutes(
    /** @type {any} */ ({
      generator,
      stats,
      events,
      host,
      token,
      describe: () => ({}),
      log,
      maxBodyBytes: limits.maxBodyBytes
    })
  )
  const http = await startHttpServer(/** @type {any} */ ({ host, port: 0, routes: control.routes, log, limits }))
  t.teardown(async () => {
    control.stop()
    await http.close()
  })
  return { port: http.port, generator, limits: http.limits }
}

/**
 * Sends raw bytes (in pieces, with pauses, when asked) and collects what
 * comes back until the server closes the connection or timeoutMs passes.
 * @param {number} port
 * @param {string | Buffer | Array<string | Buffer>} pieces
 * @param {{ gapMs?: number, timeoutMs?: number, host?: string }} [options]
 * @returns {Promise<{ status: number | null, head: string, body: string, closed: boolean, ms: number, raw: string }>}
 */
export function exchange(port, pieces, { gapMs = 0, timeoutMs = 5000, host = '127.0.0.1' } = {}) {
  const list = Array.isArray(pieces) ? pieces : [pieces]
  return new Promise(resolve => {
    const started = Date.now()
    const socket = net.connect(port, host)
    /** @type {Buffer[]} */
    const received = []
    let closed = false
    let stopped = false
    const finish = () => {
      if (stopped) return
      stopped = true
      clearTimeout(timer)
      socket.destroy()
      const raw = Buffer.concat(received).toString('utf8')
      const [head, ...rest] = raw.split('\r\n\r\n')
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)
      resolve({
        status: status ? Number(status[1]) : null,
        head,
        body: rest.join('\r\n\r\n'),
        closed,
        ms: Date.now() - started,
        raw
      })
    }
    const timer = setTimeout(finish, timeoutMs)
    socket.on('data', chunk => received.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      closed = true
      finish()
    })
    socket.on('connect', async () => {
      for (const piece of list) {
        if (stopped || socket.destroyed) return
        socket.write(piece)
        if (gapMs > 0) await new Promise(resolve => setTimeout(resolve, gapMs))
      }
    })
  })
}

/**
 * A whole HTTP/1.1 request as text.
 * @param {{ method?: string, path?: string, headers?: Record<string, string>, body?: string | Buffer }} request
 */
export function rawRequest({ method = 'POST', path = '/concurrency', headers = {}, body }) {
  const length = body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }
  const all = { Host: 'x', Connection: 'close', ...length, ...headers }
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`
  return body === undefined ? head : Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)])
}
