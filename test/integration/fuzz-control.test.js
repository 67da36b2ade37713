// The control API's bodies and headers, fuzzed over real sockets: any body,
// any Authorization header, any method and path get an answer from the
// expected set (431: headers over Node's 16 KiB, refused by Node itself;
// never 500), control errors are one line of JSON, and only a
// request with the token and a good body changes the generator.
import t from 'tap'
import fc from 'fast-check'
import { startControlServer, exchange, rawRequest } from '../helpers/control-server.js'
import { hostileText, jsonish, SEED, SCALE, safeLabel } from '../helpers/fuzz.js'

const TOKEN = 'fuzz-t0ken'
const SHORT = { headersTimeoutMs: 2000, requestTimeoutMs: 3000, checkIntervalMs: 200, maxBodyBytes: 2048 }

const body = fc.oneof(
  jsonish.map(v => JSON.stringify({ concurrency: v })),
  fc.integer({ min: -5, max: 20000 }).map(n => `{"concurrency": ${n}}`),
  hostileText([
    '{"concurrency": 8}',
    '{"concurrency": 8.0}',
    '{"concurrency": "8"}',
    '[8]',
    '8',
    'null',
    '{}',
    '{"concurrency": 1e4}',
    '{"concurrency": 10001}'
  ]),
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc.integer({ min: 2000, max: 4000 }).map(n => `{"concurrency": 8, "pad": "${'x'.repeat(n)}"}`)
)
const authorization = fc.oneof(
  fc.constant(`Bearer ${TOKEN}`),
  fc.constant(undefined),
  hostileText([
    `Bearer ${TOKEN}`,
    `bearer ${TOKEN}`,
    `Bearer  ${TOKEN}`,
    TOKEN,
    'Bearer ',
    'Basic x',
    `Bearer ${TOKEN}x`,
    `Bearer ${TOKEN.slice(1)}`
  ])
    // what a header can carry at all (Node refuses the rest itself: 400)
    .map(text => text.replace(/[^\t\u0020-\u007e\u0080-\u00ff]/g, '?'))
)
const request = fc.record({
  method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'OPTIONS'),
  path: fc.constantFrom(
    '/concurrency',
    '/concurrency',
    '/pause',
    '/resume',
    '/status',
    '/metrics',
    '/concurrency?x=1',
    '/%00',
    '//concurrency',
    '/concurrency/'
  ),
  body: fc.option(body, { nil: undefined }),
  authorization
})

t.test('any request gets an expected answer; only the token and a good body change anything', async t => {
  const server = await startControlServer(t, { host: '0.0.0.0', token: TOKEN, limits: SHORT })
  const runs = Math.round(1500 * SCALE)
  const statuses = new Map()
  const details = await fc.check(
    fc.asyncProperty(request, async r => {
      const before = { concurrency: server.generator.concurrency, changes: server.generator.changes }
      const reply = await exchange(
        server.port,
        rawRequest({
          method: r.method,
          path: r.path,
          body: r.body,
          headers: r.authorization === undefined ? {} : { Authorization: r.authorization }
        })
      )
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
      if (![200, 400, 401, 404, 405, 413, 431].includes(/** @type {number} */ (reply.status)))
        throw new Error(`status ${reply.status}: ${reply.raw.slice(0, 200)}`)
      const control = ['/concurrency', '/pause', '/resume'].includes(r.path.split('?')[0]) && r.method === 'POST'
      if (control && ![200, 404, 431].includes(/** @type {number} */ (reply.status))) {
        const lines = reply.body.split('\n').filter(line => line !== '')
        if (lines.length !== 1 || typeof JSON.parse(lines[0]).error !== 'string') {
          throw new Error(`not one line of JSON: ${reply.body.slice(0, 200)}`)
        }
      }
      const changed = server.generator.changes !== before.changes
      const authorised = /^Bearer +fuzz-t0ken *$/i.test(r.authorization ?? '')
      if (changed && !(authorised && reply.status === 200)) throw new Error(`changed by a ${reply.status}`)
      if (r.path === '/concurrency' && r.method === 'POST' && reply.status === 200 && !authorised) {
        throw new Error('200 without the token')
      }
    }),
    { seed: SEED, numRuns: runs }
  )
  if (details.failed)
    t.fail(
      safeLabel(
        `control requests: ${details.errorInstance}; input ${JSON.stringify(details.counterexample).slice(0, 500)}`
      )
    )
  else
    t.pass(
      `control API: ${runs} requests (${[...statuses]
        .sort()
        .map(([s, n]) => `${n} × ${s}`)
        .join(', ')})`
    )
  const still = await exchange(server.port, rawRequest({ method: 'GET', path: '/status' }))
  t.equal(still.status, 200, 'the server still serves')
})
