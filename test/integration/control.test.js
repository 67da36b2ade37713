// Live control of a running generator on its HTTP server: POST /concurrency
// doubles it and /status and /metrics show it within a second; /pause stops
// the done counters, /resume starts them again; bad bodies are refused; every
// change is an event. Bound to a non-loopback address, changes need the
// bearer token given at start, which is never printed or recorded.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { CliRun, waitFor, sleep } from '../helpers/cli.js'
import { createTestDatabase, generatorBackends } from '../helpers/pg.js'
import { scrape, sampleValue } from '../helpers/prom.js'
import { baseOf, control, pauseAndDrain, post, readEvents, requestTotals, status } from '../helpers/control.js'
import { assertConsistent } from '../helpers/summary.js'

const TOKEN = 's3cr3t-t0ken-4-tests'
const db = await createTestDatabase(t, 'control')
const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-control-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

/**
 * Starts a run against the test database with no end of its own.
 * @param {import('tap').Test} t
 * @param {{ concurrency: number, events: string, args?: string[], env?: Record<string, string> }} options
 */
async function startRun(t, { concurrency, events, args = [], env }) {
  const run = new CliRun(['run', db.url, '-c', String(concurrency), '-p', '0', '--json', '--events', events, ...args], {
    t,
    env
  })
  // Bound to 0.0.0.0 the URL names it; reach it on the loopback address.
  const metricsUrl = (await run.metricsUrl()).replace('//0.0.0.0:', '//127.0.0.1:')
  await waitFor(async () => sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_nconns') === concurrency, {
    what: `${concurrency} connections`
  })
  return { run, metricsUrl, base: baseOf(metricsUrl) }
}

/**
 * Polls until check holds, and says how long it took from `since`.
 * @param {() => Promise<boolean>} check
 * @param {number} since   Date.now() at the change
 * @param {string} what
 */
async function msUntil(check, since, what) {
  await waitFor(check, { what, timeoutMs: 5000, intervalMs: 20 })
  return Date.now() - since
}

t.test('on the loopback address: concurrency, pause and resume, each an event', async t => {
  const events = path.join(dir, 'loopback.ndjson')
  const { run, metricsUrl, base } = await startRun(t, { concurrency: 4, events })

  const before = await status(base)
  t.equal(before.concurrency, 4, '/status: concurrency 4')
  t.equal(before.connections, 4, '/status: 4 connections')
  t.equal(before.paused, false, '/status: not paused')
  t.equal(before.workload, 'manta', '/status: the workload')
  t.equal(before.mode, 'closed', '/status: closed loop')
  t.ok(before.uptime_s >= 0, '/status: uptime')
  t.same(
    Object.keys(before.rates).sort(),
    ['fetch_max', 'injected_error', 'insert_row', 'read_row', 'update_row'],
    '/status: a rate per request type'
  )
  t.same(before.last_events, [], '/status: no event yet')

  await t.test('POST /concurrency doubles it; /status and /metrics show it within a second', async t => {
    const changedAt = Date.now()
    const reply = await control(base, '/concurrency', { body: { concurrency: 8 } })
    t.same(reply, { concurrency: 8, previous: 4 }, 'the reply gives the new and the previous concurrency')
    const statusMs = await msUntil(
      async () => {
        const s = await status(base)
        return s.concurrency === 8 && s.connections === 8
      },
      changedAt,
      '/status to show 8'
    )
    t.ok(statusMs <= 1000, `/status shows concurrency 8 and 8 connections after ${statusMs} ms`)
    const metricsMs = await msUntil(
      async () => sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_nconns') === 8,
      changedAt,
      'pgloadgen_nconns 8'
    )
    t.ok(metricsMs <= 1000, `/metrics shows pgloadgen_nconns 8 after ${metricsMs} ms`)
    await waitFor(async () => (await generatorBackends(db.url)) === 8, { what: '8 backends' })
    t.pass('the server sees 8 generator connections')

    // And back down: the retired workers close their connections.
    t.same(
      await control(base, '/concurrency', { body: { concurrency: 4 } }),
      { concurrency: 4, previous: 8 },
      'halved again'
    )
    await waitFor(async () => (await status(base)).connections === 4 && (await generatorBackends(db.url)) === 4, {
      what: 'back to 4 connections'
    })
    t.pass('back to 4 connections, on both sides')
  })

  await t.test('bad requests are refused and change nothing', async t => {
    /** @type {[string, unknown][]} */
    const bad = [
      ['not JSON', 'eight'],
      ['empty body', ''],
      ['no concurrency field', {}],
      ['zero', { concurrency: 0 }],
      ['negative', { concurrency: -2 }],
      ['fractional', { concurrency: 2.5 }],
      ['a string', { concurrency: '8' }],
      ['too many', { concurrency: 10001 }],
      ['null', { concurrency: null }],
      ['a JSON array', [8]]
    ]
    for (const [name, body] of bad) {
      const reply = await post(base, '/concurrency', { body })
      t.equal(reply.status, 400, `${name}: 400`)
      t.match(reply.json?.error, /concurrency/, `${name}: the error says what is expected`)
    }
    const huge = await post(base, '/concurrency', { body: JSON.stringify({ concurrency: 8, pad: 'x'.repeat(70000) }) })
    t.equal(huge.status, 413, 'a body over 64 KiB: 413')
    t.match(huge.json?.error, /too large/, 'the error says so')
    const get = await fetch(`${base}/concurrency`)
    t.equal(get.status, 405, 'GET /concurrency: 405')
    t.match(get.headers.get('allow') ?? '', 'POST', 'Allow: POST')
    t.equal((await fetch(`${base}/pause`)).status, 405, 'GET /pause: 405')
    t.equal((await fetch(`${base}/nowhere`, { method: 'POST' })).status, 404, 'unknown route: 404')
    const s = await status(base)
    t.equal(s.concurrency, 4, 'concurrency unchanged')
    t.equal(s.paused, false, 'not paused')
  })

  await t.test('POST /pause stops the requests; POST /resume starts them again', async t => {
    await pauseAndDrain(metricsUrl)
    t.equal((await status(base)).paused, true, '/status: paused')
    const first = await requestTotals(metricsUrl)
    await sleep(1000)
    const second = await requestTotals(metricsUrl)
    t.equal(second.done, first.done, `no request done in the second after the pause (${first.done} → ${second.done})`)
    t.equal(second.started, first.started, 'none started either')
    t.equal(await generatorBackends(db.url), 4, 'the connections stay open while paused')

    t.same(await control(base, '/resume'), { paused: false }, 'resumed')
    t.equal((await status(base)).paused, false, '/status: not paused')
    await waitFor(async () => (await requestTotals(metricsUrl)).done > second.done + 100, {
      what: 'requests after resuming',
      timeoutMs: 5000
    })
    t.pass('requests are done again')
  })

  const s = await status(base)
  t.same(
    s.last_events.map((/** @type {any} */ e) => e.action),
    ['concurrency', 'concurrency', 'pause', 'resume'],
    '/status lists the last events'
  )

  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, `exit 0 at SIGTERM; stderr: ${result.stderr}`)
  assertConsistent(t, result.summary, { concurrency: 4 })
  t.equal(result.summary.unexpected_failures, 0, 'no unexpected failure')
  t.match(result.stderr, /concurrency changed from 4 to 8/, 'the change is logged')

  const recorded = await readEvents(events)
  t.same(
    recorded.map(e => [e.kind, e.action]),
    [
      ['point', 'concurrency'],
      ['point', 'concurrency'],
      ['point', 'pause'],
      ['point', 'resume']
    ],
    'every change is a point event in the events file, bad requests none'
  )
  t.same(recorded[0].detail, { from: 4, to: 8 }, 'the concurrency event says from and to')
  t.same(recorded[1].detail, { from: 8, to: 4 }, 'and back')
  for (const e of recorded) t.ok(!Number.isNaN(Date.parse(e.ts)) && /Z$/.test(e.ts), `ts is an ISO time: ${e.ts}`)
})

t.test('on a non-loopback address, changes need the bearer token given at start', async t => {
  const events = path.join(dir, 'token.ndjson')
  const { run, base, metricsUrl } = await startRun(t, {
    concurrency: 2,
    events,
    args: ['--http-host', '0.0.0.0', '--control-token', TOKEN]
  })

  for (const [name, options] of /** @type {[string, { token?: string, authorization?: string }][]} */ ([
    ['no token', {}],
    ['a wrong token', { token: 'wrong' }],
    ['the token with a character more', { token: `${TOKEN}x` }],
    ['the token without "Bearer"', { authorization: TOKEN }],
    ['an empty bearer', { authorization: 'Bearer ' }]
  ])) {
    for (const route of ['/pause', '/resume', '/concurrency']) {
      const reply = await post(base, route, {
        ...options,
        body: route === '/concurrency' ? { concurrency: 4 } : undefined
      })
      t.equal(reply.status, 401, `${name}: POST ${route} 401`)
      t.match(reply.headers.get('www-authenticate') ?? '', /^Bearer/, `${name}: WWW-Authenticate: Bearer`)
    }
  }
  let s = await status(base)
  t.equal(s.concurrency, 2, 'nothing changed without the token')
  t.equal(s.paused, false, 'not paused')
  t.same(s.last_events, [], 'no event for refused requests')

  t.same(
    await control(base, '/concurrency', { body: { concurrency: 4 }, token: TOKEN }),
    { concurrency: 4, previous: 2 },
    'with the token: 200'
  )
  t.same(await control(base, '/pause', { token: TOKEN }), { paused: true }, 'pause with the token: 200')
  t.same(await control(base, '/resume', { token: TOKEN }), { paused: false }, 'resume with the token: 200')
  s = await status(base)
  t.equal(s.concurrency, 4, 'the change took effect')
  t.equal((await fetch(`${base}/status`)).status, 200, '/status is readable without the token')
  const page = await scrape(metricsUrl)
  await waitFor(async () => sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_nconns') === 4, {
    what: '4 connections'
  })

  const statusText = await (await fetch(`${base}/status`)).text()
  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  t.equal(result.summary.concurrency, 2, 'the summary: the concurrency at start')
  t.equal(result.summary.final_concurrency, 4, 'and the one at the end')
  t.notMatch(result.stderr, TOKEN, 'the token is not in stderr')
  t.notMatch(result.stdout, TOKEN, 'nor in the summary')
  t.notMatch(statusText, TOKEN, 'nor in /status')
  t.notMatch(page.text, TOKEN, 'nor in /metrics')
  const recorded = await readEvents(events)
  t.same(
    recorded.map(e => e.action),
    ['concurrency', 'pause', 'resume'],
    'the three changes are events'
  )
  t.notMatch(JSON.stringify(recorded), TOKEN, 'the token is not in the events file')
})

t.test('the token can come from PGLOADGEN_CONTROL_TOKEN', async t => {
  const events = path.join(dir, 'env-token.ndjson')
  const { run, base } = await startRun(t, {
    concurrency: 1,
    events,
    args: ['--http-host', '0.0.0.0'],
    env: { PGLOADGEN_CONTROL_TOKEN: TOKEN }
  })
  t.equal((await post(base, '/pause')).status, 401, 'without it: 401')
  t.equal((await post(base, '/pause', { token: TOKEN })).status, 200, 'with it: 200')
  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, 'exit 0')
  t.notMatch(result.stderr, TOKEN, 'the token is not in stderr')
})

for (const [name, env] of /** @type {[string, Record<string, string>][]} */ ([
  ['without a token', {}],
  ['with an empty token', { PGLOADGEN_CONTROL_TOKEN: '' }]
])) {
  t.test(`on a non-loopback address ${name}, control is refused`, async t => {
    const events = path.join(dir, `no-token-${Object.keys(env).length}.ndjson`)
    const { run, base } = await startRun(t, { concurrency: 1, events, args: ['--http-host', '0.0.0.0'], env })
    for (const route of ['/pause', '/resume', '/concurrency']) {
      for (const token of [undefined, 'anything']) {
        const reply = await post(base, route, {
          token,
          body: route === '/concurrency' ? { concurrency: 2 } : undefined
        })
        t.equal(reply.status, 403, `POST ${route} ${token ? 'with' : 'without'} an Authorization header: 403`)
        t.match(reply.json?.error, /--control-token/, 'the error says how to enable control')
      }
    }
    const s = await status(base)
    t.equal(s.concurrency, 1, 'concurrency unchanged')
    t.equal(s.paused, false, 'not paused')
    run.kill('SIGTERM')
    const result = await run.exited
    t.equal(result.code, 0, 'exit 0')
    t.same(await readEvents(events), [], 'no event recorded')
  })
}
