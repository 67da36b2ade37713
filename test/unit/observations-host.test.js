// The causes seen on the machine (cause-host.js): other processes taking
// the CPU, the server's processes stopped, a server that answered nothing;
// and their place among the causes of a change (explain.js causesAt). No
// server: samples written here as the recorder writes them.
import t from 'tap'
import { observe } from '../../lib/analysis/observations.js'
import { causesAt } from '../../lib/analysis/explain.js'
import { CPU_RISE_PCT } from '../../lib/analysis/cause-host.js'

const START = Date.parse('2026-11-25T10:00:00.000Z')

/**
 * @param {number} elapsed
 * @param {Record<string, any>} host
 * @param {Record<string, any>} [extra]
 */
function sample(elapsed, host, extra = {}) {
  return {
    t: new Date(START + elapsed * 1000).toISOString(),
    elapsed_s: elapsed,
    throughput: 1000,
    concurrency: 4,
    paused: false,
    reconnects: 0,
    connections: 4,
    requests: { q: { done: 1000, failed: 0, p50_us: 500, p99_us: 2000 } },
    host: {
      busy_pct: 60,
      iowait_pct: 0,
      steal_pct: 0,
      cores: 2,
      own_pct: 60,
      server_pct: 40,
      server_pid: 100,
      server_stopped: 0,
      server_procs: 10,
      others_pct: 20,
      top: [{ pid: 7, name: 'tap', pct: 15 }],
      ...host
    },
    ...extra
  }
}

/** A seeded noise in [-1, 1). */
function noise(/** @type {number} */ seed) {
  let a = seed >>> 0
  return () => {
    a = (a * 1664525 + 1013904223) >>> 0
    return a / 2 ** 31 - 1
  }
}

t.test('busy processes from second 30 to 45: other processes took the CPU, named with their share', async t => {
  const jitter = noise(7)
  const samples = []
  for (let s = 1; s <= 60; s++) {
    const busy = s > 30 && s <= 45
    // a machine already busy: the newcomers take their share from every process, the load's among them
    samples.push(
      sample(s, {
        own_pct: (busy ? 35 : 60) + 5 * jitter(),
        server_pct: busy ? 25 : 40,
        others_pct: 100 + 10 * jitter(),
        top: [
          { pid: 7, name: 'tap', pct: (busy ? 30 : 45) + 10 * jitter() },
          ...(busy
            ? [
                { pid: 4242, name: 'spin', pct: 30 },
                { pid: 4243, name: 'spin', pct: 20 }
              ]
            : [])
        ]
      })
    )
  }
  const found = observe({ samples, events: [] }).filter(o => o.kind === 'cpu_contention')
  t.equal(found.length, 1, 'one span')
  t.equal(found[0].from_s, 30, 'from the second it began')
  t.equal(found[0].to_s, 45, 'to the second it ended')
  t.match(
    found[0].label,
    /^2 other processes took the CPU \(pid 4242 spin, 30 % of a core; pid 4243 spin, 20 % of a core: 50 % of a core in all\); the generator and the server (9\d|10\d) → (5\d|6\d) % of a core$/
  )
})

t.test('one contender leaves as another starts: two spans, the second named by its own processes', async t => {
  // another test's processes from 20 to 30 s, then the spinners from 30 to 45 s: the load's CPU never
  // comes back between them (a loaded machine under CI)
  const jitter = noise(9)
  const samples = []
  for (let s = 1; s <= 60; s++) {
    const first = s > 20 && s <= 30
    const second = s > 30 && s <= 45
    samples.push(
      sample(s, {
        own_pct: (first || second ? 35 : 60) + 5 * jitter(),
        server_pct: first || second ? 25 : 40,
        others_pct: 100 + 10 * jitter(),
        top: [
          { pid: 7, name: 'tap', pct: 45 + 5 * jitter() },
          ...(first ? [{ pid: 900, ppid: 800, name: 'node', n: 3, pct: 60 }] : []),
          ...(second ? [{ pid: 4242, ppid: 1, name: 'sh', n: 3, pct: 60 }] : [])
        ]
      })
    )
  }
  const found = observe({ samples, events: [] }).filter(o => o.kind === 'cpu_contention')
  t.same(
    found.map(o => [o.from_s, o.to_s]),
    [
      [20, 30],
      [30, 45]
    ],
    'one span each, the second from the moment the first ended'
  )
  t.match(found[1]?.label ?? '', /processes sh, children of pid 1/, 'the second named by its own processes')
})

t.test('busy processes there from the start end at second 30: the CPU given back, named with what fell', async t => {
  const jitter = noise(13)
  const samples = []
  for (let s = 1; s <= 60; s++) {
    const busy = s <= 30
    samples.push(
      sample(s, {
        own_pct: (busy ? 35 : 60) + 5 * jitter(),
        server_pct: busy ? 25 : 40,
        others_pct: (busy ? 150 : 100) + 10 * jitter(),
        wait_pct: busy ? 80 : 40,
        top: [
          { pid: 7, name: 'tap', pct: 45 + 5 * jitter() },
          ...(busy ? [{ pid: 4242, ppid: 1, name: 'spin', n: 6, pct: 60 + 5 * jitter() }] : [])
        ]
      })
    )
  }
  const found = observe({ samples, events: [] }).filter(o => o.kind === 'cpu_contention')
  t.same(
    found.map(o => [o.from_s, o.to_s]),
    [[30, 33]],
    'one moment, where the processes ended'
  )
  t.match(
    found[0]?.label ?? '',
    /^6 other processes gave the CPU back \(6 processes spin, children of pid 1, (5\d|6\d) → 0 % of a core\); the generator and the server (5\d|6\d) → (9\d|10\d) % of a core$/
  )
})

t.test('a load that resumes by itself takes the CPU back and waits for it: not the CPU given back', async t => {
  // a lock held the load from second 1 to 30: it slept, and another process filled the CPU it left
  const samples = []
  for (let s = 1; s <= 60; s++) {
    const locked = s <= 30
    samples.push(
      sample(s, {
        own_pct: locked ? 5 : 60,
        server_pct: locked ? 5 : 40,
        wait_pct: locked ? 1 : 60,
        top: [{ pid: 900, ppid: 800, name: 'build', n: 2, pct: locked ? 150 : 90 }]
      })
    )
  }
  t.same(
    observe({ samples, events: [] }).filter(o => o.kind === 'cpu_contention'),
    [],
    'the others fell because the load came back'
  )
})

t.test('no cause when the load did not lose CPU, or the newcomers are too small', async t => {
  const jitter = noise(11)
  const samples = Array.from({ length: 60 }, (_, i) =>
    sample(i + 1, {
      own_pct: 60 + 5 * jitter(),
      top: i >= 30 ? [{ pid: 4242, name: 'spin', pct: 90 }] : [],
      others_pct: i >= 30 ? 110 : 20
    })
  )
  t.same(
    observe({ samples, events: [] }).filter(o => o.kind === 'cpu_contention'),
    [],
    'a newcomer on an idle core: the load kept its CPU'
  )
  const small = Array.from({ length: 60 }, (_, i) =>
    sample(i + 1, {
      own_pct: i >= 30 ? 30 : 60,
      top: i >= 30 ? [{ pid: 4242, name: 'spin', pct: CPU_RISE_PCT - 10 }] : []
    })
  )
  t.same(
    observe({ samples: small, events: [] }).filter(o => o.kind === 'cpu_contention'),
    [],
    'a newcomer below the rise: the load lost CPU to something the lab cannot name'
  )
})

t.test('stopped server processes; a silence with connections open and no lock wait', async t => {
  const samples = []
  for (let s = 1; s <= 40; s++) {
    const stopped = s > 10 && s <= 18
    const silent = s > 25 && s <= 30
    samples.push(
      sample(s, { server_stopped: stopped ? 10 : 0 }, { throughput: stopped || silent ? 0 : 1000, requests: {} })
    )
  }
  const seen = observe({ samples, events: [] })
    .filter(o => o.kind === 'server_stopped' || o.kind === 'stall')
    .map(o => [o.kind, o.from_s, o.to_s, o.label])
  t.same(seen, [
    ['server_stopped', 10, 18, "the server's processes were stopped (up to 10 of 10 in state T, postmaster pid 100)"],
    ['stall', 25, 30, 'the server answered nothing for 5 s (connections open, no lock wait seen)']
  ])
})

t.test('causes: a stopped server and a lock first, other processes before an autovacuum', async t => {
  const observations = [
    { from_s: 29, to_s: null, kind: 'vacuum', label: 'autovacuum of t (pid 9) starts' },
    { from_s: 30, to_s: 44, kind: 'cpu_contention', label: 'another process took the CPU' },
    { from_s: 31, to_s: null, kind: 'checkpoint', label: 'checkpoint (timed)' }
  ]
  const window = { before: 5, after: 3 }
  t.same(
    causesAt(30, observations, window).map(c => c.kind),
    ['cpu_contention', 'vacuum', 'checkpoint']
  )
  t.same(
    causesAt(31, [...observations, { from_s: 30, to_s: 40, kind: 'server_stopped', label: 'stopped' }], window).map(
      c => c.kind
    )[0],
    'server_stopped'
  )
  t.same(
    causesAt(33, [{ from_s: 20, to_s: null, kind: 'cpu_contention', label: 'x' }], window).map(c => c.kind),
    ['cpu_contention'],
    'a contention that had begun before and goes on still fits'
  )
  t.same(causesAt(80, observations, window), [], 'nothing near: no cause seen')
})
