// The lab's parts that run beside a load, on a fake clock and stand-ins:
// the warm-up's mark, the thresholds judged while the load runs, the
// session's generator, and the pure parts of the modules that otherwise
// need a server or root (the WAL position's bytes, the xid counts, the disk
// limits). Every module of lib/generator and lib/lab is imported here or in
// another unit test; the two thread entry points only run as threads.
import t from 'tap'
import { readdir } from 'node:fs/promises'
import { LoadOverTime } from '../../lib/lab/load-over-time.js'
import { watchThresholds } from '../../lib/lab/threshold-watch.js'
import { makeGenerator } from '../../lib/lab/session-generator.js'
import { buildRunSpec, runSpecWith } from '../../lib/lab/run-spec.js'
import { lsnBytes } from '../../lib/lab/server-wal.js'
import { parseXidCount, MAX_BY } from '../../lib/lab/age-xids.js'
import { parseDiskLimit, describeDiskLimit } from '../../lib/lab/disk-throttle.js'
import { Generator } from '../../lib/generator/generator.js'
import { RunState } from '../../lib/generator/run-state.js'
import { RequestStats } from '../../lib/metrics/request-stats.js'
import { parseThreshold } from '../../lib/config/thresholds.js'
import { mixOf } from '../../lib/config/mix.js'
import { FakeClock } from '../helpers/fake-clock.js'

/** A log that keeps what it was told. */
function recordingLog() {
  /** @type {string[]} */
  const lines = []
  const say = (/** @type {string} */ level) => (/** @type {string} */ message) => lines.push(`${level}: ${message}`)
  return { lines, log: /** @type {any} */ ({ debug: say('debug'), info: say('info'), warn: say('warn') }) }
}

/** A stand-in for the load's generator: the figures the lab reads of it. */
const standInGenerator = () => /** @type {any} */ ({ concurrency: 4, reconnects: 0, skipped: 0 })

t.test('load over time: the warm-up marked when it ends, with what the stats held then', async t => {
  const clock = new FakeClock().install(t)
  const stats = new RequestStats(['read'])
  const generator = standInGenerator()
  const { lines, log } = recordingLog()
  const overTime = new LoadOverTime({ stages: null, warmupS: 2, openLoop: false, stats, generator, log })
  const loadClock = () => ({ seconds: (clock.nowMs - 1000) / 1000, cpu: { user: 1, system: 2 } })
  overTime.start(Date.now(), loadClock)
  stats.start(0)
  stats.finish(0, 500, true)
  await clock.advance(1999)
  t.equal(overTime.mark, null, 'not before the warm-up ends')
  generator.reconnects = 3
  await clock.advance(1)
  const mark = /** @type {import('../../lib/summary/warmup.js').WarmupMark} */ (overTime.mark)
  t.equal(mark.seconds, 2, 'marked at 2 s')
  t.equal(mark.reconnects, 3, "the generator's reconnects then")
  t.equal(new RequestStats(['read'], mark.memory).done[0], 1, 'the request done during the warm-up')
  stats.finish(0, 500, true)
  t.equal(new RequestStats(['read'], mark.memory).done[0], 1, 'a copy: later requests are not in it')
  t.same(lines, ['info: warm-up over after 2 s: the summary counts from now'])
  t.equal(overTime.markAtEnd(loadClock), mark, 'at the end, the mark taken')
  overTime.stop()
})

t.test('load over time: a load that ends during its warm-up has all of it there', async t => {
  const clock = new FakeClock().install(t)
  const stats = new RequestStats(['read'])
  const { lines, log } = recordingLog()
  const overTime = new LoadOverTime({
    stages: null,
    warmupS: 10,
    openLoop: false,
    stats,
    generator: standInGenerator(),
    log
  })
  const loadClock = () => ({ seconds: (clock.nowMs - 1000) / 1000, cpu: { user: 0, system: 0 } })
  overTime.start(Date.now(), loadClock)
  await clock.advance(4000)
  overTime.stop()
  t.equal(clock.pending, 0, 'stop() clears the warm-up timer')
  const mark = overTime.markAtEnd(loadClock)
  t.equal(mark?.seconds, 4, 'the mark at the end')
  t.match(lines, [/^warn: the load ended during its 10 s warm-up/])
})

t.test('threshold watch: a growing figure past its limit fails the run at the next check', async t => {
  const clock = new FakeClock().install(t)
  const stats = new RequestStats(['read'])
  const generator = standInGenerator()
  const threshold = parseThreshold('reconnects<2', { types: ['read'], mode: 'closed', audits: false })
  const load = { stats, generator, started: clock.nowMs }
  const watch = watchThresholds(load, [threshold], { scheduled: false })
  let failed = null
  watch.failed.then(failure => (failed = failure))
  generator.reconnects = 1
  await clock.advance(3000)
  t.equal(failed, null, 'within the limit: judged every second, nothing failed')
  generator.reconnects = 3
  await clock.advance(999)
  t.equal(failed, null, 'not until the next check')
  await clock.advance(1)
  t.same(failed, { expr: 'reconnects<2', value: 3, unit: 'count', at_s: 4 }, 'failed at 4 s, with the value')
  t.same(watch.failure, failed)
  t.equal(clock.pending, 0, 'the checks end once it failed')
})

t.test('threshold watch: nothing judged during the warm-up; stop() ends the checks', async t => {
  const clock = new FakeClock().install(t)
  const generator = standInGenerator()
  generator.reconnects = 5
  const threshold = parseThreshold('reconnects<2', { types: ['read'], mode: 'closed', audits: false })
  /** @type {{ stats: RequestStats, generator: any, started: number, warmupMark?: any }} */
  const load = { stats: new RequestStats(['read']), generator, started: clock.nowMs }
  const watch = watchThresholds(load, [threshold], { scheduled: false, warmupS: 5 })
  await clock.advance(5000)
  t.equal(watch.failure, null, 'no mark yet: the warm-up is not judged')
  load.warmupMark = { seconds: 5, memory: load.stats.memory, errors: new Map(), reconnects: 4, skipped: 0 }
  await clock.advance(1000)
  t.equal(watch.failure, null, 'one reconnect since the warm-up: within the limit')
  watch.stop()
  t.equal(clock.pending, 0, 'stopped')
})

t.test("session generator: this thread's clients, or a refusal to split what cannot be", async t => {
  const workload = /** @type {any} */ ({ name: 'w', types: ['read'], clients: null })
  const spec = buildRunSpec({ workload, mix: mixOf(['read'], [1]), instance: { index: 1, parts: 3 } })
  const place = /** @type {any} */ ({
    target: { connectionString: 'postgres://stand-in/db', display: 'stand-in', embedded: false },
    log: recordingLog().log
  })
  const run = { shared: null, state: new RunState(0), stats: new RequestStats(['read']), pacer: null, openLoop: null }
  const one = /** @type {Generator} */ (makeGenerator(spec, place, run))
  t.ok(one instanceof Generator, 'one thread: a Generator')
  t.same(
    [0, 1, 2].map(k => one.clientId(k)),
    [1, 4, 7],
    "a part's clients keep their numbers in the whole load"
  )
  t.equal(one.concurrency, 0, 'no client before it is asked for')
  t.throws(() => makeGenerator(runSpecWith(spec, { threads: 2 }), place, run), {
    message: /its workload was not chosen by name/
  })
  const shared = { f: () => {} }
  const chosen = runSpecWith(spec, { threads: 2, workloadChoice: /** @type {any} */ ({ workload: 'w' }) })
  t.throws(() => makeGenerator(chosen, place, { ...run, shared }), {
    message: /the w workload's setup returned what cannot go to another thread/
  })
})

t.test("the pure parts: an LSN's bytes, xid counts, disk limits", async t => {
  t.equal(lsnBytes('0/16B3748'), 0x16b3748)
  t.equal(lsnBytes('1/0') - lsnBytes('0/FFFFFFFF'), 1, 'the high word is 2^32 bytes')
  t.equal(parseXidCount('2M', 'by'), 2e6)
  t.equal(parseXidCount('500k', 'by'), 5e5)
  t.equal(parseXidCount(' 2e6 ', 'by'), 2e6)
  t.throws(() => parseXidCount('1.5', 'by'), { message: /by: expected a whole number of transaction IDs/ })
  t.throws(() => parseXidCount(String(MAX_BY + 1), 'by'), { message: `by: expected 1 to ${MAX_BY}, got ${MAX_BY + 1}` })
  const limit = parseDiskLimit('read_mbps=8,read_iops=400', '--disk-limit')
  t.same(limit, { readBps: 8e6, readIops: 400, writeBps: null, writeIops: null })
  t.equal(describeDiskLimit(limit), 'read 8 MB/s, 400 IOPS')
  t.equal(describeDiskLimit(parseDiskLimit({ write_mbps: 0.5 }, 'disk_limit')), 'write 0.5 MB/s')
  t.throws(() => parseDiskLimit('read_mbps=0', 'x'), { message: /x.read_mbps: megabytes/ })
  t.throws(() => parseDiskLimit({ speed: 1 }, 'x'), { message: /x.speed: unknown field/ })
  t.throws(() => parseDiskLimit({}, 'x'), { message: /x: give at least one of/ })
})

t.test('every module of lib/generator and lib/lab loads without a server', async t => {
  // run only as a worker thread's body: they read the thread's parentPort and workerData when loaded
  const threadBodies = ['generator-thread-main.js', 'generator-thread.js']
  // types only: what a session is given besides its run specification
  const typesOnly = ['session-place.js']
  for (const dir of ['generator', 'lab']) {
    const folder = new URL(`../../lib/${dir}/`, import.meta.url)
    const names = (await readdir(folder)).filter(name => name.endsWith('.js') && !threadBodies.includes(name))
    for (const name of names) {
      const module = await import(new URL(name, folder).href)
      if (typesOnly.includes(name)) t.equal(Object.keys(module).length, 0, `lib/${dir}/${name}: types only`)
      else t.ok(Object.keys(module).length > 0, `lib/${dir}/${name}: exports`)
    }
  }
})
