// The control API against hostile clients, over real sockets: a body over
// the limit gets 413 without being read, a sender that trickles its headers
// or its body gets 408 or a closed connection, bad JSON gets 400, a wrong
// token or one of another length gets 401, all with one line of JSON; and
// the server goes on serving. Timeouts are short here (the server takes
// them as options); the defaults a run uses are checked too.
import t from 'tap'
import { DEFAULT_LIMITS } from '../../lib/http/http-server.js'
import { startControlServer, exchange, rawRequest } from '../helpers/control-server.js'
import { createTestDatabase } from '../helpers/pg.js'
import { CliRun, waitFor } from '../helpers/cli.js'

const TOKEN = 'c0ntrol-t0ken-of-32-characters!!'
const SHORT = { headersTimeoutMs: 600, requestTimeoutMs: 1200, checkIntervalMs: 100, maxBodyBytes: 1024 }

/**
 * @param {import('tap').Test} t
 * @param {{ status: number | null, body: string }} reply
 * @param {number} status
 * @param {RegExp} error
 */
function assertJsonError(t, reply, status, error) {
  t.equal(reply.status, status, `status ${status}`)
  const lines = reply.body.split('\n').filter(line => line !== '')
  t.equal(lines.length, 1, `one line of body: ${JSON.stringify(reply.body.slice(0, 200))}`)
  let json = null
  try {
    json = JSON.parse(lines[0])
  } catch {
    // not JSON: the match below fails
  }
  t.match(json?.error, error, 'a JSON error that says what was wrong')
}

t.test('the defaults a run uses are sane', async t => {
  t.equal(DEFAULT_LIMITS.maxBodyBytes, 65536, 'body: 64 KiB')
  t.ok(
    DEFAULT_LIMITS.headersTimeoutMs >= 5000 && DEFAULT_LIMITS.headersTimeoutMs <= 60000,
    `headers within ${DEFAULT_LIMITS.headersTimeoutMs} ms`
  )
  t.ok(
    DEFAULT_LIMITS.requestTimeoutMs >= DEFAULT_LIMITS.headersTimeoutMs && DEFAULT_LIMITS.requestTimeoutMs <= 120000,
    `the whole request within ${DEFAULT_LIMITS.requestTimeoutMs} ms`
  )
})

t.test('an oversized body: 413 at once, the rest never read', async t => {
  const { port, generator } = await startControlServer(t, { limits: SHORT })
  // declared too large: refused from the headers alone, though no byte of the body comes
  const declared = await exchange(
    port,
    rawRequest({ headers: { 'Content-Length': String(10 * 1024 * 1024), 'Content-Type': 'application/json' } }),
    { timeoutMs: 3000 }
  )
  assertJsonError(t, declared, 413, /too large: at most 1024 bytes/)
  t.ok(
    declared.closed && declared.ms < 1000,
    `the connection is closed without waiting for the body (${declared.ms} ms)`
  )
  // chunked, no length given: refused once the limit is passed
  const chunk = `{"concurrency": 8, "pad": "${'x'.repeat(600)}`
  const chunked = await exchange(
    port,
    [
      rawRequest({ headers: { 'Transfer-Encoding': 'chunked' } }),
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
      ...Array.from({ length: 50 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`)
    ],
    { gapMs: 5, timeoutMs: 3000 }
  )
  assertJsonError(t, chunked, 413, /too large/)
  t.equal(generator.changes, 0, 'nothing changed')
  // at the default limit, through a real sized body
  const { port: port2 } = await startControlServer(t, {})
  const big = await exchange(
    port2,
    rawRequest({ body: JSON.stringify({ concurrency: 8, pad: 'y'.repeat(70 * 1024) }) })
  )
  assertJsonError(t, big, 413, /at most 65536 bytes/)
  const fits = await exchange(
    port2,
    rawRequest({ body: JSON.stringify({ concurrency: 8, pad: 'y'.repeat(60 * 1024) }) })
  )
  t.equal(fits.status, 200, 'a body under 64 KiB is read: 200')
})

t.test('a slow sender: 408 or a closed connection, not a connection held forever', async t => {
  const { port, generator } = await startControlServer(t, { limits: SHORT })
  // headers a byte at a time, never finished
  const head = rawRequest({ body: '{"concurrency": 8}' }).toString('latin1').slice(0, 60)
  const headers = await exchange(port, [...head], { gapMs: 50, timeoutMs: 6000 })
  t.ok(headers.closed, `closed after ${headers.ms} ms`)
  t.ok(headers.ms < 2500, 'within the header timeout (and its check interval)')
  t.ok(headers.status === 408 || headers.status === null, `408 or nothing: ${headers.status}`)
  // headers at once, then a body that trickles past the request timeout
  const body = '{"concurrency": 8' + ' '.repeat(100) + '}'
  const slowBody = await exchange(port, [rawRequest({ headers: { 'Content-Length': String(body.length) } }), ...body], {
    gapMs: 30,
    timeoutMs: 8000
  })
  t.ok(slowBody.closed && slowBody.ms < 3500, `a trickled body: closed after ${slowBody.ms} ms`)
  t.ok(slowBody.status === 408 || slowBody.status === null, `408 or nothing: ${slowBody.status}`)
  // connected, nothing sent
  const silent = await exchange(port, [], { timeoutMs: 6000 })
  t.ok(silent.closed && silent.ms < 2500, `a silent connection: closed after ${silent.ms} ms`)
  t.equal(generator.concurrency, 4, 'nothing changed')
  const after = await exchange(port, rawRequest({ body: '{"concurrency": 6}' }))
  t.equal(after.status, 200, 'the server still serves')
})

t.test('bad JSON: 400 with one line', async t => {
  const { port, generator } = await startControlServer(t, { limits: SHORT })
  for (const body of ['eight', '{"concurrency": 8', '{"concurrency": 8}}', '\u0000', '\uFEFF{"concurrency":8}', '']) {
    const reply = await exchange(port, rawRequest({ body }))
    assertJsonError(t, reply, 400, /concurrency/)
  }
  // a multi-byte character split between two packets is one character
  const split = Buffer.from('{"concurrency": 5, "note": "é€😀"}')
  const request = rawRequest({ body: split })
  const cut = request.length - 8
  const reply = await exchange(port, [request.subarray(0, cut), request.subarray(cut)], { gapMs: 30 })
  t.equal(reply.status, 200, 'UTF-8 split across packets: 200')
  t.equal(generator.concurrency, 5, 'and applied')
})

t.test('on a non-loopback address: a wrong token, or one of another length, is 401', async t => {
  const { port, generator } = await startControlServer(t, { host: '0.0.0.0', token: TOKEN, limits: SHORT })
  const cases = [
    ['no header', {}],
    ['a wrong token of the same length', { Authorization: `Bearer ${'x'.repeat(TOKEN.length)}` }],
    ['a shorter token', { Authorization: 'Bearer c0ntrol' }],
    ['a longer token', { Authorization: `Bearer ${TOKEN}${'x'.repeat(1000)}` }],
    ['the token and more after a space', { Authorization: `Bearer ${TOKEN} x` }],
    ['the token without Bearer', { Authorization: TOKEN }],
    ['Basic', { Authorization: `Basic ${Buffer.from(`a:${TOKEN}`).toString('base64')}` }],
    ['latin-1 bytes', { Authorization: `Bearer ${TOKEN.slice(0, -1)}\u00e9` }]
  ]
  for (const [name, headers] of /** @type {[string, Record<string, string>][]} */ (cases)) {
    const reply = await exchange(port, rawRequest({ path: '/pause', headers }))
    t.equal(reply.status, 401, `${name}: 401`)
    t.match(reply.head, /WWW-Authenticate: Bearer/i, `${name}: WWW-Authenticate: Bearer`)
  }
  t.equal(generator.changes, 0, 'nothing changed')
  const ok = await exchange(port, rawRequest({ path: '/pause', headers: { Authorization: `Bearer ${TOKEN}` } }))
  t.equal(ok.status, 200, 'the token: 200')
  const lower = await exchange(port, rawRequest({ path: '/resume', headers: { Authorization: `bearer  ${TOKEN}` } }))
  t.equal(lower.status, 200, 'the scheme in any case, any number of spaces: 200')
  // the comparison takes as long whatever the token's length
  const time = async (/** @type {string} */ token) => {
    const started = process.hrtime.bigint()
    for (let i = 0; i < 30; i++)
      await exchange(port, rawRequest({ path: '/pause', headers: { Authorization: `Bearer ${token}` } }))
    return Number(process.hrtime.bigint() - started) / 1e6
  }
  const short = await time('x')
  const same = await time('y'.repeat(TOKEN.length))
  t.pass(
    `30 refusals: ${short.toFixed(0)} ms with a 1-character token, ${same.toFixed(0)} ms with one of the token's ` +
      `length (compared as SHA-256 digests)`
  )
})

t.test('a real generator: 413 over 64 KiB, 401 for a token of another length, 400 for bad JSON', async t => {
  const db = await createTestDatabase(t, 'control_hostile')
  const run = new CliRun(
    [
      'run',
      db.url,
      '-c',
      '1',
      '-p',
      '0',
      '--http-host',
      '0.0.0.0',
      '--control-token',
      TOKEN,
      '--events',
      '/dev/null',
      '--json'
    ],
    { t }
  )
  const url = new URL((await run.metricsUrl()).replace('//0.0.0.0:', '//127.0.0.1:'))
  const port = Number(url.port)
  // the control routes come once the load session is open
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/status`)).status === 200, { what: '/status' })
  const auth = { Authorization: `Bearer ${TOKEN}` }
  assertJsonError(
    t,
    await exchange(
      port,
      rawRequest({ headers: auth, body: JSON.stringify({ concurrency: 2, pad: 'z'.repeat(70000) }) })
    ),
    413,
    /too large/
  )
  t.equal(
    (await exchange(port, rawRequest({ headers: { Authorization: 'Bearer short' }, body: '{"concurrency": 2}' })))
      .status,
    401,
    'a shorter token: 401'
  )
  const notJson = await exchange(port, rawRequest({ headers: auth, body: '{"concurrency": ' }))
  assertJsonError(t, notJson, 400, /concurrency/)
  t.equal(JSON.parse(notJson.body).code, 'PGLG_INVALID_REQUEST', 'with its code')
  t.equal(
    (await exchange(port, rawRequest({ headers: auth, body: '{"concurrency": 2}' }))).status,
    200,
    'the token and good JSON: 200'
  )
  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, 'the run ends normally')
  t.notMatch(result.stderr, /internal error|pgloadgen (warn|error):/, 'nothing went wrong inside')
  t.equal(result.summary?.unexpected_failures, 0, 'no request failed unexpectedly')
})
