// What the lab sees directly, reported as a change of its own whether or
// not the load's series moved (lib/analysis/hold-ups.js), and named in a
// run's changes with the condition itself as the first cause
// (lib/analysis/explain.js): samples written here as the recorder writes
// them, no server.
import t from 'tap'
import { conditionChanges, spansOf } from '../../lib/analysis/hold-ups.js'
import { explainRun } from '../../lib/analysis/explain.js'
import { describeChange } from '../../lib/analysis/wording.js'

const START = Date.parse('2026-11-25T10:00:00.000Z')
const SECONDS = 50
const POLL_LEAD_S = 0.4

/**
 * A recorded second of a steady load: throughput with a little noise, the
 * server polled with nothing in its way, the machine's figures with a CPU
 * contender that comes and goes unrelated to anything below.
 * @param {number} elapsed
 * @param {{ horizon?: any[], vacuums?: any[], waiting?: number, reconnects?: number, failed?: number,
 *     stopped?: number, throughput?: number, sessions?: number }} [state]
 */
function sample(elapsed, state = {}) {
  return {
    t: new Date(START + elapsed * 1000).toISOString(),
    elapsed_s: elapsed,
    throughput: state.throughput ?? 1000 + ((elapsed * 37) % 11) * 10,
    concurrency: 4,
    connections: 4,
    paused: false,
    reconnects: state.reconnects ?? 0,
    requests: {
      q: { done: 1000, failed: state.failed ?? 0, p50_us: 500, p99_us: 2000 + ((elapsed * 13) % 7) * 50 },
      injected_error: { done: 10, failed: 10, p50_us: 300, p99_us: 900 }
    },
    host: { busy_pct: 60, iowait_pct: 0, steal_pct: 0, cores: 2, own_pct: 40, server_pct: 60, server_stopped: 0 },
    server: {
      // the server is polled a little before the sample is written
      polled_at: new Date(START + (elapsed - POLL_LEAD_S) * 1000).toISOString(),
      checkpoints: { timed: 1, requested: 0 },
      // the server's sessions in a database, every database's, for 37 connection slots
      connections: { clients: state.sessions ?? 6, slots: 37 },
      vacuums: state.vacuums ?? [],
      horizon: [
        { kind: 'backend', pid: 50, application_name: 'pgloadgen', state: 'active', xact_age_s: 0.01, xmin_age: 2 },
        ...(state.horizon ?? [])
      ],
      locks: {
        waiting: state.waiting ?? 0,
        longest_wait_s: null,
        blockers: state.waiting ? [{ pid: 88, application_name: 'locker' }] : []
      }
    },
    ...(state.stopped !== undefined && {
      host: { busy_pct: 10, iowait_pct: 0, steal_pct: 0, cores: 2, own_pct: 1, server_pct: 0, server_stopped: 9 }
    })
  }
}

/**
 * A run of SECONDS seconds whose second `from` to `to` (inclusive) have the state.
 * @param {number} from @param {number} to
 * @param {(elapsed: number) => Parameters<typeof sample>[1]} state
 */
function runWith(from, to, state) {
  return Array.from({ length: SECONDS }, (_, i) => sample(i + 1, i + 1 >= from && i + 1 <= to ? state(i + 1) : {}))
}

/** A session outside the load holding a snapshot since second `since`. @param {number} since */
const report = since => (/** @type {number} */ elapsed) => ({
  horizon: [
    {
      kind: 'backend',
      pid: 77,
      application_name: 'report',
      state: 'idle in transaction',
      xact_age_s: elapsed - POLL_LEAD_S - since,
      xmin_age: 100 * (elapsed - since)
    }
  ]
})

t.test('spans of a figure above 0 go through one second back at 0 and through seconds not seen', async t => {
  t.same(spansOf([0, 2, 3, 0, 4, null, 5, 0, 0, 1]), [
    { first: 1, last: 6, most: 5, total: 14 },
    { first: 9, last: 9, most: 1, total: 1 }
  ])
  t.same(spansOf([0, 0, null, 0]), [])
})

t.test('a snapshot held by a session outside the load: a change at its start and its end', async t => {
  // the transaction began at 22.4 s; the poll for the sample at 23 s, at 22.6 s, sees it 0.2 s old
  const samples = runWith(23, 36, report(22.4))
  const changes = conditionChanges(samples, 2).filter(c => c.metric === 'condition:xmin_horizon')
  t.same(
    changes.map(c => [c.at_s, c.before.median, c.after.median, c.effect]),
    [
      [22.4, 0, 6.7, null],
      [36, 6.7, 0, -1]
    ]
  )
  t.equal(describeChange(changes[0]), 'xmin horizon held 0 → 7 s (from 0)')

  const { changes: all } = explainRun({ samples, events: [] })
  const start = all.find(c => c.metric === 'condition:xmin_horizon')
  t.equal(start?.at_s, 22.4, 'the run reports the condition though its throughput never moved')
  t.notOk(
    all.some(c => !c.metric.startsWith('condition:')),
    'and no change of a series'
  )
  t.equal(start?.causes[0]?.kind, 'xmin_holder')
  t.match(start?.causes[0]?.label, /session report \(pid 77\)/)
})

t.test('a holder younger than 5 s, the load itself and a vacuum are no condition', async t => {
  const brief = runWith(23, 26, report(22.5))
  t.same(conditionChanges(brief, 2), [], 'held for under 5 s')
  const vacuum = runWith(20, 35, elapsed => ({
    horizon: [
      { kind: 'backend', pid: 88, application_name: '', state: 'active', xact_age_s: elapsed - POLL_LEAD_S - 19.5 }
    ],
    vacuums: [{ pid: 88, table: 'public.t', mode: 'manual', phase_name: 'scanning heap', started_at: null }]
  }))
  t.same(
    conditionChanges(vacuum, 2).filter(c => c.metric === 'condition:xmin_horizon'),
    [],
    "a vacuum's xmin holds back no other vacuum"
  )
  const before = runWith(1, 50, report(-30))
  t.same(conditionChanges(before, 2), [], 'held since before the load began: a state of the whole run, not a change')
})

t.test('a prepared transaction left open', async t => {
  const samples = runWith(30, 50, elapsed => ({
    horizon: [
      { kind: 'prepared', pid: null, name: 'tx1', state: null, xact_age_s: elapsed - POLL_LEAD_S - 29.8, xmin_age: 5 }
    ]
  }))
  const { changes } = explainRun({ samples, events: [] })
  t.same(
    changes.map(c => [c.at_s, c.metric]),
    [[29.8, 'condition:xmin_horizon']],
    'its start; it had not ended when the run did'
  )
  t.match(changes[0].causes[0].label, /prepared transaction 'tx1'/)
})

t.test('a reconnect storm: clients reconnect every second, requests fail, the throughput holds', async t => {
  // the counter counts from the start: 8 more each second of the storm, and stays
  const samples = Array.from({ length: SECONDS }, (_, i) =>
    sample(i + 1, { reconnects: 8 * Math.min(14, Math.max(0, i - 18)), failed: i + 1 >= 20 && i + 1 <= 33 ? 5 : 0 })
  )
  const { changes } = explainRun({ samples, events: [] })
  const starts = changes.filter(c => c.at_s === 19)
  t.same(starts.map(c => c.metric).sort(), ['condition:failures', 'condition:reconnects'])
  for (const c of starts) t.match(c.causes[0]?.kind, /^(reconnects|failures)$/, `${c.metric}: named as such`)
  t.ok(
    changes.some(c => c.metric === 'condition:reconnects' && c.at_s === 33 && c.after.median === 0),
    'and its end'
  )
})

t.test('one lost connection, or failures of an error probe, are no condition', async t => {
  // the counter counts from the start: it rose once, at 20 s
  const one = runWith(20, 50, () => ({ reconnects: 1 }))
  t.same(conditionChanges(one, 2), [], 'a single reconnect: the counter rose once')
  const { changes } = explainRun({ samples: runWith(1, 0, () => ({})), events: [] })
  t.same(changes, [], 'the probe fails every second: a steady run reports nothing')
})

t.test(
  'a manual VACUUM running 3 s or more: a change dated at its start, named first; an autovacuum is none',
  async t => {
    const manual = (/** @type {string} */ mode, /** @type {number | null} */ started) => () => ({
      vacuums: [{ pid: 88, table: 'public.big', mode, phase_name: 'scanning heap', started_at: started }]
    })
    // the statement began at 20.2 s; the polls from 21 s to 31 s saw it
    const samples = runWith(21, 31, manual('manual', START / 1000 + 20.2))
    const changes = conditionChanges(samples, 2).filter(c => c.metric === 'condition:vacuum')
    t.same(
      changes.map(c => [c.at_s, c.before.median, c.after.median]),
      [
        [20.2, 0, 5.4],
        [31, 5.4, 0]
      ],
      'from its statement start to the last poll that saw it'
    )
    const { changes: all } = explainRun({ samples, events: [] })
    const start = all.find(c => c.metric === 'condition:vacuum')
    t.equal(start?.at_s, 20.2, 'reported though the throughput never moved')
    t.equal(describeChange(changes[0]), 'manual VACUUM running 0 → 5 s (from 0)')
    t.equal(start?.causes[0]?.kind, 'vacuum')
    t.match(start?.causes[0]?.label, /^VACUUM of public\.big \(pid 88\) starts/)

    t.same(
      conditionChanges(runWith(21, 31, manual('autovacuum', START / 1000 + 20.2)), 2),
      [],
      "an autovacuum is the server's own work"
    )
    t.same(
      conditionChanges(runWith(21, 31, manual('wraparound', START / 1000 + 20.2)), 2),
      [],
      'so is an anti-wraparound one'
    )
    t.same(conditionChanges(runWith(21, 22, manual('manual', START / 1000 + 20.8)), 2), [], 'over within 3 s')
    const elsewhere = () => ({
      vacuums: [{ pid: 89, table: '25882', here: false, mode: 'manual', phase_name: 'scanning heap', started_at: null }]
    })
    t.same(conditionChanges(runWith(21, 31, elsewhere), 2), [], "another database's VACUUM on the same server is none")
    const unknownStart = conditionChanges(runWith(21, 30, manual('manual', null)), 2)
    t.same(
      unknownStart.map(c => c.at_s),
      [19.6, 30],
      'with no statement start known: from a second before the first poll that saw it (at 20.6 s)'
    )
  }
)

t.test('a lock wait and a stopped server of 3 s or more; shorter ones are not', async t => {
  const lock = runWith(25, 30, () => ({ waiting: 4 }))
  t.same(
    conditionChanges(lock, 2)
      .filter(c => c.metric === 'condition:lock_wait')
      .map(c => [c.at_s, c.after.median]),
    [
      [24, 4],
      [30, 0]
    ]
  )
  t.same(
    conditionChanges(
      runWith(25, 26, () => ({ waiting: 4 })),
      2
    ),
    [],
    'a wait of 2 s'
  )
  const stopped = runWith(25, 34, () => ({ stopped: 9 }))
  const { changes } = explainRun({ samples: stopped, events: [] })
  const start = changes.find(c => c.metric === 'condition:server_stopped')
  t.equal(start?.at_s, 24)
  t.equal(start?.causes[0]?.kind, 'server_stopped')
})

t.test("every connection slot taken by another application's sessions, for 3 s or more", async t => {
  const burst = runWith(30, 40, () => ({ sessions: 37 }))
  t.same(
    conditionChanges(burst, 2)
      .filter(c => c.metric === 'condition:connection_slots')
      .map(c => [c.at_s, c.after.median]),
    [
      [29, 33],
      [40, 0]
    ],
    "its start and its end; the figure is the sessions other than the load's 4 clients"
  )
  const { changes } = explainRun({ samples: burst, events: [] })
  t.equal(changes.find(c => c.metric === 'condition:connection_slots')?.causes[0]?.kind, 'connection_slots')
  t.same(
    conditionChanges(
      runWith(30, 31, () => ({ sessions: 37 })),
      2
    ),
    [],
    'two seconds taken'
  )
})

t.test('no request answered for 3 s or more is a stall; a shorter gap is not', async t => {
  const dark = runWith(20, 29, () => ({ throughput: 0 }))
  t.same(
    conditionChanges(dark, 2)
      .filter(c => c.metric === 'condition:stall')
      .map(c => [c.at_s, c.after.median]),
    [
      [19, 1],
      [29, 0]
    ],
    'a link gone dark for 10 s: its start and its end'
  )
  t.same(
    conditionChanges(
      runWith(20, 21, () => ({ throughput: 0 })),
      2
    ),
    [],
    'two seconds without an answer'
  )
})

t.test('every client reconnecting within a second is a condition, however short', async t => {
  // the counter counts from the start: the run's 4 clients at 30 s, once
  const restart = runWith(30, 50, () => ({ reconnects: 4 }))
  t.same(
    conditionChanges(restart, 2).map(c => [c.at_s, c.metric]),
    [[29, 'condition:reconnects']],
    'a restart: every connection replaced at once'
  )
  t.same(
    conditionChanges(
      runWith(30, 50, () => ({ reconnects: 2 })),
      2
    ),
    [],
    'half of them: no condition'
  )
  // two clients reconnect in the second that ends at 30 s, the other two in the next
  const straddling = runWith(30, 50, () => ({ reconnects: 2 })).map(s =>
    s.elapsed_s >= 31 && s.elapsed_s <= 50 ? { ...s, reconnects: 4 } : s
  )
  t.same(
    conditionChanges(straddling, 2).map(c => [c.at_s, c.metric]),
    [[29, 'condition:reconnects']],
    'every connection replaced across the end of a second: counted over the two'
  )
})

t.test('half an hour with a reconnect burst every two minutes keeps every burst', async t => {
  // 15 bursts, each every client losing its connection once and 4 s of
  // failures (a start and an end each): 45 changes, more than the 20 a
  // short run keeps
  const bursts = Array.from({ length: 15 }, (_, k) => 100 + 120 * k)
  let reconnects = 0
  const samples = Array.from({ length: 1800 }, (_, i) => {
    const elapsed = i + 1
    const burst = bursts.includes(elapsed)
    if (burst) reconnects += 4
    const failing = bursts.some(at => elapsed >= at && elapsed < at + 4)
    return sample(elapsed, { reconnects, failed: failing ? 4 : 0 })
  })
  const { changes } = explainRun({ samples, events: [] })
  const found = bursts.filter(at =>
    changes.some(c => c.metric === 'condition:reconnects' && Math.abs(c.at_s - (at - 1)) <= 1)
  )
  t.equal(found.length, bursts.length, `${found.length} of ${bursts.length} bursts in the ${changes.length} changes`)
})
