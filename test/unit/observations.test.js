// What the lab saw during a run, as observations.js reads it from samples,
// events and the server's log, and which of it explain.js names as the
// cause of a change: no server, samples written here as the recorder
// writes them.
import t from 'tap'
import { observe, loadStartMs } from '../../lib/analysis/observations.js'
import { checkpointsInLog } from '../../lib/analysis/cause-checkpoints.js'
import { causesAt, groupChanges } from '../../lib/analysis/explain.js'
import { describeChange, describeCauses } from '../../lib/analysis/wording.js'

const START = Date.parse('2026-11-25T10:00:00.000Z')

/**
 * A recorded second: elapsed_s after the load's start, with the given server figures.
 * @param {number} elapsed
 * @param {Record<string, any>} [extra]
 */
function sample(elapsed, extra = {}) {
  return {
    t: new Date(START + elapsed * 1000).toISOString(),
    elapsed_s: elapsed,
    throughput: 1000,
    concurrency: 4,
    paused: false,
    reconnects: 0,
    requests: { q: { done: 1000, failed: 0, p50_us: 500, p99_us: 2000 } },
    ...extra
  }
}

/** @param {Record<string, any>} server */
const withServer = server => ({
  server: {
    checkpoints: { timed: 1, requested: 0 },
    vacuums: [],
    horizon: [],
    locks: { waiting: 0, longest_wait_s: null, blockers: [] },
    ...server
  }
})

t.test('the load began one elapsed_s before the first sample', async t => {
  t.equal(loadStartMs([sample(1)]), START)
})

t.test("a vacuum from its statement's start to its last sample, and its phases", async t => {
  const vacuum = (/** @type {string} */ phase) =>
    withServer({
      vacuums: [{ pid: 7, table: 'public.t', mode: 'manual', phase_name: phase, started_at: (START + 9500) / 1000 }]
    })
  const samples = [
    sample(9),
    sample(10, vacuum('scanning heap')),
    sample(11, vacuum('scanning heap')),
    sample(12, vacuum('vacuuming indexes')),
    sample(13, withServer({}))
  ]
  const seen = observe({ samples, events: [] })
  t.same(
    seen.filter(o => o.kind.startsWith('vacuum')).map(o => [o.from_s, o.label]),
    [
      [9.5, 'VACUUM of public.t (pid 7) starts'],
      [12, 'VACUUM of public.t (pid 7): vacuuming indexes'],
      [13, 'VACUUM of public.t (pid 7) ends (ran 3.5 s)']
    ]
  )
})

t.test("an xmin holder from its transaction's start; the generator's own sessions never", async t => {
  const holder = {
    kind: 'backend',
    pid: 42,
    application_name: 'report',
    name: null,
    state: 'idle in transaction',
    xact_age_s: 8,
    xmin_age: 100
  }
  const ours = { ...holder, pid: 43, application_name: 'pgloadgen', xact_age_s: 30 }
  const young = { ...holder, pid: 44, application_name: 'quick', xact_age_s: 1 }
  const samples = [
    sample(19),
    sample(20, withServer({ horizon: [ours, holder, young] })),
    sample(21, withServer({ horizon: [holder] })),
    sample(22, withServer({}))
  ]
  const holders = observe({ samples, events: [] }).filter(o => o.kind === 'xmin_holder')
  t.same(
    holders.map(o => [o.from_s, o.to_s, o.label]),
    [[12, 21, 'xmin horizon held by session report (pid 42), idle in transaction']]
  )
})

t.test('lock waits count when someone other than the load is seen blocking them', async t => {
  const waits = (/** @type {string} */ app) =>
    withServer({ locks: { waiting: 3, longest_wait_s: 1.5, blockers: [{ pid: 9, application_name: app }] } })
  const samples = [
    sample(5),
    sample(6, waits('pgloadgen')),
    // a wait whose holder was gone when the poll looked for it: a short one
    sample(7, withServer({ locks: { waiting: 2, longest_wait_s: 0.2, blockers: [] } })),
    sample(8, withServer({})),
    sample(30, waits('locker')),
    sample(31, waits('locker')),
    sample(32, withServer({}))
  ]
  const locks = observe({ samples, events: [] }).filter(o => o.kind === 'lock_wait')
  t.same(
    locks.map(o => [o.from_s, o.to_s, o.label]),
    [[28.5, 31, '3 sessions waiting for a lock held by pid 9 (locker)']]
  )
})

t.test('checkpoints from the server log, with why', async t => {
  const log = [
    '2026-11-25 10:00:12.250 UTC [88] LOG:  checkpoint starting: immediate force wait',
    '2026-11-25 10:00:13.000 UTC [88] LOG:  checkpoint complete: wrote 3 buffers (0.0%); 0 WAL file(s) added',
    '2026-11-25 10:00:40.000 UTC [88] LOG:  checkpoint starting: time',
    '2026-11-25 10:00:41.000 UTC [90] LOG:  automatic vacuum of table "x.public.t": index scans: 0'
  ].join('\n')
  t.same(checkpointsInLog(log), [
    { ts: '2026-11-25T10:00:12.250Z', reason: 'requested' },
    { ts: '2026-11-25T10:00:40.000Z', reason: 'timed' }
  ])
  const seen = observe({ samples: [sample(1), sample(50)], events: [], logText: log }).filter(
    o => o.kind === 'checkpoint'
  )
  t.same(
    seen.map(o => [o.from_s, o.label]),
    [
      [12.3, 'checkpoint starting (requested)'],
      [40, 'checkpoint starting (timed)']
    ]
  )
})

t.test('without the log, checkpoints from the counters', async t => {
  const samples = [sample(1, withServer({})), sample(2, withServer({ checkpoints: { timed: 1, requested: 2 } }))]
  t.same(
    observe({ samples, events: [] })
      .filter(o => o.kind === 'checkpoint')
      .map(o => o.label),
    ['2 checkpoints (requested)']
  )
})

t.test('the machine strained, reconnects, failures, concurrency and actions', async t => {
  const samples = [
    sample(1, { host: { busy_pct: 50, iowait_pct: 2, steal_pct: 0 } }),
    sample(2, { host: { busy_pct: 60, iowait_pct: 40, steal_pct: 0 }, reconnects: 2, concurrency: 8 }),
    sample(3, {
      host: { busy_pct: 60, iowait_pct: 2, steal_pct: 0 },
      reconnects: 2,
      concurrency: 8,
      requests: { q: { done: 10, failed: 5, p50_us: 1, p99_us: 1 } }
    })
  ]
  const events = [
    { ts: new Date(START + 2500).toISOString(), kind: /** @type {const} */ ('start'), action: 'vacuum', table: 't' }
  ]
  const labels = observe({ samples, events }).map(o => `${o.from_s} ${o.kind}: ${o.label}`)
  t.same(labels, [
    '1 reconnects: 2 clients reconnected (the connection was lost)',
    '1 concurrency: concurrency 4 → 8',
    '1 host: the machine strained: up to 40 % of its CPU time waiting for I/O',
    '2 failures: requests began to fail (5 in that second)',
    '2.5 action: vacuum of t starts'
  ])
})

t.test("causes: what fits the change's moment, nearest and likeliest first; nothing: none", async t => {
  const observations = [
    { from_s: 3, to_s: null, kind: 'checkpoint', label: 'early checkpoint' },
    { from_s: 28, to_s: null, kind: 'checkpoint', label: 'checkpoint' },
    { from_s: 29, to_s: 45, kind: 'lock_wait', label: 'waiting for locker' },
    { from_s: 10, to_s: null, kind: 'xmin_holder', label: 'held by report' },
    { from_s: 60, to_s: null, kind: 'vacuum', label: 'late vacuum' }
  ]
  const window = { before: 5, after: 3 }
  t.same(
    causesAt(30, observations, window).map(c => c.label),
    ['waiting for locker', 'held by report', 'checkpoint'],
    'what acts at once, then what someone holds, then what the server does by itself'
  )
  t.same(
    causesAt(46, observations, window).map(c => c.label),
    ['waiting for locker ended', 'held by report']
  )
  t.same(
    causesAt(
      20,
      observations.filter(o => o.kind !== 'xmin_holder'),
      window
    ),
    [],
    'no cause seen'
  )
})

t.test('a checkpoint under way, from the poll that sees the checkpointer at work', async t => {
  const at = (/** @type {number} */ s, /** @type {boolean} */ running, requested = 0) =>
    sample(s, withServer({ checkpoints: { timed: 0, requested, running } }))
  const samples = [at(1, false), at(2, false), at(3, true), at(4, true), at(5, true), at(6, false, 1), at(7, false, 1)]
  t.same(
    observe({ samples, events: [] })
      .filter(o => o.kind === 'checkpoint')
      .map(o => [o.from_s, o.to_s, o.label]),
    [
      [3, 6, 'a checkpoint under way (the checkpointer writing)'],
      [6, null, 'checkpoint (requested)']
    ],
    'seen at 3 s, three seconds before the counter rose as it ended'
  )
})

t.test('every connection slot taken, when the load alone could not take them', async t => {
  const at = (/** @type {number} */ s, /** @type {number} */ clients, concurrency = 4) =>
    sample(s, { concurrency, ...withServer({ connections: { clients, slots: 97 } }) })
  const samples = [at(1, 6), at(2, 6), at(3, 97), at(4, 100), at(5, 60), at(6, 6), at(20, 97, 97), at(21, 97, 97)]
  const spans = observe({ samples, events: [] }).filter(o => o.kind === 'connection_slots')
  t.same(
    spans.map(o => [o.from_s, o.to_s, o.label]),
    [[3, 5, "every connection slot taken (up to 100 sessions for 97 slots), the load's 4 clients among them"]],
    'from the poll that saw them taken to the first that saw one free; not when the load alone takes them'
  )
  const checkpoint = { from_s: 3.5, to_s: null, kind: 'checkpoint', label: 'checkpoint (requested)' }
  t.same(
    causesAt(4, [checkpoint, ...spans], { before: 5, after: 3 }).map(c => c.kind),
    ['connection_slots', 'checkpoint'],
    "another application's connections before what the server does by itself"
  )
})

t.test("a surge of the WAL's full-page images is a checkpoint's doing", async t => {
  /** @param {number[]} perSecond full-page images written in each second, from second 1 */
  const run = perSecond => {
    let fpi = 1000
    return perSecond.map((n, i) => sample(i + 1, withServer({ wal: { records: 0, fpi: (fpi += n), bytes: 0 } })))
  }
  const quiet = Array(12).fill(40)
  const seen = (/** @type {number[]} */ perSecond) =>
    observe({ samples: run(perSecond), events: [] })
      .filter(o => o.kind === 'checkpoint')
      .map(o => [o.from_s, o.label])
  const why = '(pages changed for the first time since a checkpoint)'
  t.same(
    seen([...quiet, 600, 500, 90, 40, 40, 40, 700, 40]),
    [
      [12, `full-page images in the WAL at 600/s, 15× the 40/s before ${why}`],
      [18, `full-page images in the WAL at 700/s, 18× the 40/s before ${why}`]
    ],
    'each surge once, from the poll before the rise; the next after the rate fell back'
  )
  t.same(seen([...quiet, 90, 95, 40]), [], 'not below 100 a second, however many times the rate before')
  t.same(seen([...Array(12).fill(400), 900, 400]), [], 'not less than 3 times the rate before')
  t.same(seen([600, ...quiet]), [], 'not without 5 polls before it to compare with')
})

t.test("the machine's I/O wait comes after a checkpoint that fits, however near it rose", async t => {
  const observations = [
    { from_s: 29.5, to_s: 36, kind: 'host', label: 'the machine strained: up to 30 % of its CPU time waiting for I/O' },
    { from_s: 32, to_s: null, kind: 'checkpoint', label: '3 checkpoints (requested)' }
  ]
  t.same(
    causesAt(30, observations, { before: 5, after: 3 }).map(c => c.kind),
    ['checkpoint', 'host'],
    'the checkpoint 2 s after the change, then the wait that rose 0.5 s before it'
  )
  t.same(
    causesAt(30, observations.slice(0, 1), { before: 5, after: 3 }).map(c => c.kind),
    ['host'],
    'the wait alone, when nothing of the server fits'
  )
})

t.test('changes in words, grouped by moment', async t => {
  const level = (/** @type {number} */ median) => ({ median, low: median * 0.9, high: median * 1.1, n: 20 })
  const changes = [
    {
      at_s: 30,
      metric: 'throughput',
      before: level(8000),
      after: level(0),
      effect: -1,
      causes: [{ kind: 'lock_wait', label: 'waiting for locker', at_s: 29 }]
    },
    { at_s: 31, metric: 'p99_us:insert_row', before: level(2000), after: level(30000), effect: 14, causes: [] },
    { at_s: 45, metric: 'throughput', before: level(0), after: level(8000), effect: null, causes: [] }
  ]
  t.equal(describeChange(changes[0]), 'throughput 8000 → 0/s (−100 %)')
  t.equal(describeChange(changes[1]), 'p99 insert_row 2.00 → 30.0 ms (×15)')
  t.equal(describeChange(changes[2]), 'throughput 0 → 8000/s (from 0)')
  const groups = groupChanges(changes)
  t.same(
    groups.map(g => [g.at_s, g.changes.length, describeCauses(g.causes)]),
    [
      [30, 2, 'waiting for locker'],
      [45, 1, 'no cause seen']
    ]
  )
})
