// node-postgres asks, as it loads, whether it runs in a Cloudflare Worker:
// without a `navigator` (Node 20 has none) it constructs a `Response` and
// looks for Cloudflare's `cf` property on it (pg/lib/stream.js). In Node 20
// the first use of `Response` loads the whole fetch implementation (undici,
// and with it http2, tls, zlib and web streams): about 4 MiB of resident
// memory that a run never uses. While node-postgres loads, `Response` is
// hidden, so that it concludes what it would anyway (not a Cloudflare
// Worker: plain net sockets) without that cost; the global's own lazy
// definition is put back right after, and fetch works as before.

/**
 * Loads node-postgres, once: every later import of 'pg' gets this module.
 * A process's entry point calls it before anything imports 'pg'.
 */
export async function loadPg() {
  const response = Object.getOwnPropertyDescriptor(globalThis, 'Response')
  if (!response?.configurable) return import('pg')
  Object.defineProperty(globalThis, 'Response', { value: undefined, configurable: true, writable: true })
  try {
    return await import('pg')
  } finally {
    Object.defineProperty(globalThis, 'Response', response)
  }
}
