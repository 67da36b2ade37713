// What the parsers make of their inputs, value by value: durations and
// sizes, --stages and the profile a ramp follows, schedules and their
// conditions. The fuzz files check that any input is parsed or refused in
// one line; these check that what is parsed means what it says. No server.
import t from 'tap'
import { formatMix } from '../../lib/config/mix.js'
import { InputError } from '../../lib/errors.js'
import { parseOffset, parseQuantity, MAX_TIMER_S } from '../../lib/helpers/durations.js'
import { parseDuration, parseInteger } from '../../lib/config/number-flags.js'
import { parseStages, stagesSeconds, profileOf, valueAt, areaUntil, timeOfArea } from '../../lib/config/stages.js'
import { parseSchedule } from '../../lib/sidecar/schedule.js'
import { parseCondition } from '../../lib/sidecar/conditions.js'
import { parsePlan } from '../../lib/experiment/plan.js'

t.test('durations of schedules and plans (parseOffset): seconds', async t => {
  const cases = /** @type {const} */ ([
    ['90', 90],
    ['90s', 90],
    ['10m', 600],
    ['1h30m', 5400],
    ['500ms', 0.5],
    ['1d', 86400],
    ['1.5h', 5400],
    ['2h45m10s', 9910],
    [' 15m ', 900],
    ['0', 0],
    [0, 0],
    [42.5, 42.5]
  ])
  for (const [input, seconds] of cases) t.equal(parseOffset(input, 'after'), seconds, JSON.stringify(input))
  for (const bad of ['', '1h 30m', '-5s', '10x', 'm', -1, NaN, Infinity, null, {}]) {
    t.throws(() => parseOffset(bad, 'after'), InputError, `${JSON.stringify(bad)} refused`)
  }
  t.throws(() => parseOffset('10x', 'every'), { message: 'every: not a duration: "10x" (like 90s, 10m, 1h30m)' })
})

t.test('sizes (parseQuantity): byte units binary, k/m/g decimal', async t => {
  const cases = /** @type {const} */ ([
    ['2 GB', 2 * 1024 ** 3],
    ['500MB', 500 * 1024 ** 2],
    ['150000000', 150e6],
    ['150M', 150e6],
    ['1e6', 1e6],
    ['10 kb', 10240],
    ['7k', 7000],
    ['1g', 1e9],
    ['0.2', 0.2],
    ['1 B', 1],
    ['3 TB', 3 * 1024 ** 4]
  ])
  for (const [input, value] of cases) t.equal(parseQuantity(input, 'table_size'), value, input)
  for (const bad of ['2 gib', '', '-1', 'GB', '1e400', '5 constructor']) {
    t.throws(() => parseQuantity(bad, 'table_size'), InputError, bad)
  }
})

t.test("the CLI's durations and whole numbers", async t => {
  t.equal(parseDuration('90', '-d'), 90)
  t.equal(parseDuration('15m', '-d'), 900)
  t.equal(parseDuration(' 2h ', '-d'), 7200)
  t.equal(parseDuration('1.5', '-d'), 1.5)
  t.equal(parseDuration('24d', '-d'), 24 * 86400, '24 days: below the longest timer')
  t.throws(() => parseDuration('25d', '-d'), { message: /^-d must be at most 2147483 seconds \(about 24 days\)/ })
  t.equal(parseDuration('25d', '-d', { max: 30 * 86400 }), 25 * 86400, 'a larger bound where the run waits in pieces')
  for (const bad of ['0', '', '1h30m', '5ms', 'x']) {
    t.throws(() => parseDuration(bad, '-d'), InputError, `-d ${bad} refused`)
  }
  t.equal(parseInteger(' 8 ', '-c', { min: 1, max: 10000 }), 8)
  t.equal(parseInteger('007', '-c'), 7)
  t.throws(() => parseInteger('0', '-c', { min: 1, max: 10000 }), { message: '-c must be between 1 and 10000, got 0' })
  t.throws(() => parseInteger('2.5', '-c'), { message: '-c must be a whole number, got "2.5"' })
  t.equal(MAX_TIMER_S, 2147483)
})

t.test('--stages: a duration and a target each; the profile they make', async t => {
  const refuse = (/** @type {string} */ problem) => new InputError(`--stages ${problem}`)
  const rules = { whole: true, max: 100, maxSeconds: 3600, refuse }
  const stages = parseStages('30s:8, 1m:32,30s:0', rules)
  t.same(stages, [
    { seconds: 30, target: 8 },
    { seconds: 60, target: 32 },
    { seconds: 30, target: 0 }
  ])
  t.equal(stagesSeconds(stages), 120)
  const rates = { ...rules, whole: false }
  t.same(parseStages('500ms:2.5', rates), [{ seconds: 0.5, target: 2.5 }], 'rates may be fractions')
  t.throws(() => parseStages('30s:2.5', rules), { message: /^--stages must have whole numbers of clients as targets/ })
  t.throws(() => parseStages('30s:101', rules), { message: '--stages must have targets of at most 100 (stage 1)' })
  t.throws(() => parseStages('30s:8,x', rules), { message: /stage 2 is "x"$/ })
  t.throws(() => parseStages('0s:8', rules), { message: '--stages must last more than 0 s in all' })
  t.throws(() => parseStages('2h:8', rules), { message: '--stages must last at most 3600 s in all' })
  t.throws(() => parseStages('', rules), InputError)

  const profile = profileOf(stages, 2)
  t.same(profile, [
    { atS: 0, value: 2 },
    { atS: 30, value: 8 },
    { atS: 90, value: 32 },
    { atS: 120, value: 0 }
  ])
  t.equal(valueAt(profile, 0), 2, 'starts where the load was')
  t.equal(valueAt(profile, 15), 5, 'a straight line to the first target')
  t.equal(valueAt(profile, 60), 20)
  t.equal(valueAt(profile, 500), 0, 'the last target holds')
  t.equal(areaUntil(profile, 30), ((2 + 8) / 2) * 30, 'the area under the first stage')
  t.equal(areaUntil(profile, 120), 150 + 1200 + 480, 'under all of them')
  for (const s of [0.5, 10, 30, 45.25, 90, 100]) {
    t.ok(Math.abs(timeOfArea(profile, areaUntil(profile, s)) - s) < 1e-9, `timeOfArea inverts areaUntil at ${s} s`)
  }
  t.equal(timeOfArea(profile, 1e9), Infinity, 'an area past a profile that ends at 0 is never reached')
  t.equal(timeOfArea(profileOf([{ seconds: 10, target: 4 }], 0), 0), 0, 'the first arrival where the ramp leaves 0')
})

t.test('schedules: each rule, its trigger and its times', async t => {
  const now = new Date('2026-06-12T10:00:00Z')
  const rules = parseSchedule(
    {
      actions: [
        { action: 'checkpoint', every: '5m' },
        { action: 'vacuum', table: 'test_table', at: '03:00' },
        { action: 'analyze', table: 't', when: 'dead_fraction(t) > 0.2', cooldown: '2m' },
        { action: 'vacuum', table: 't', after: '1h30m', freeze: true }
      ]
    },
    now
  )
  t.match(rules[0], { trigger: 'every', everyS: 300, once: false, spec: { action: 'checkpoint' }, label: 'actions[0]' })
  t.match(rules[1], { trigger: 'at', once: true, spec: { action: 'vacuum', table: 'test_table' } })
  const at = /** @type {Date} */ (rules[1].at)
  const ahead = at.getTime() - now.getTime()
  t.ok(at.getHours() === 3 && at.getMinutes() === 0 && ahead > 0 && ahead <= 86400e3, 'the next 03:00 (local time)')
  const condition = { metric: 'dead_fraction', table: 't', op: '>', value: 0.2 }
  t.match(rules[2], { trigger: 'when', cooldownS: 120, condition })
  t.match(rules[3], { trigger: 'after', afterS: 5400, spec: { action: 'vacuum', table: 't', freeze: true } })
  t.same(
    parseSchedule([{ action: 'checkpoint', after: 0 }], now).map(r => r.afterS),
    [0],
    'a list of rules alone'
  )
  t.throws(() => parseSchedule({ actions: [{ action: 'analyze', table: 't', after: '1m', every: '1m' }] }, now), {
    message: 'actions[0]: give exactly one of after, at, every, when (got after, every)'
  })
  const tooLong = { actions: [{ action: 'checkpoint', every: '30d' }] }
  t.throws(() => parseSchedule(tooLong, now), InputError, 'a wait no timer can make')
})

t.test('conditions: a metric of a table, a comparison, a number or size', async t => {
  const bytes = { metric: 'table_bytes', table: 'test_table', op: '>', value: 2 * 1024 ** 3 }
  t.match(parseCondition('table_bytes(test_table) > 2 GB', 'when'), bytes)
  const age = { metric: 'xid_age', table: 'public.t', op: '>=', value: 1e6 }
  t.match(parseCondition(' xid_age(public.t)>=1e6 ', 'when'), age)
  t.match(parseCondition('disk_free < 10 GB', 'when'), { metric: 'disk_free', op: '<', value: 10 * 1024 ** 3 })
  for (const bad of ['bogus(t) > 1', 'dead_fraction(t) ~ 1', 'dead_fraction(t) >', '']) {
    t.throws(() => parseCondition(bad, 'when'), InputError, JSON.stringify(bad))
  }
})

t.test('plans: the server, the load, and each step as the runner reads it', async t => {
  const plan = await parsePlan(
    {
      name: 'vacuum-or-not',
      server: { url: 'postgres://postgres@127.0.0.1:5432/test', data_dir: '/srv/pg' },
      mix: 'insert_row=60,read_row=40',
      concurrency: 4,
      stats_interval: '2s',
      prepare: { rows: 1000 },
      variants: [
        {
          name: 'vacuum',
          steps: [
            { load: '10s' },
            { action: { action: 'vacuum', table: 'test_table' } },
            { wait: 'action', timeout: '5m' },
            { concurrency: 'x2' },
            { load: '5s', concurrency: 8 },
            { wait: 'dead_fraction(test_table) < 0.05', timeout: 60 }
          ]
        }
      ],
      repetitions: 2
    },
    { baseDir: '/nonexistent' }
  )
  t.match(plan, {
    name: 'vacuum-or-not',
    server: { kind: 'url', url: 'postgres://postgres@127.0.0.1:5432/test', dataDir: '/srv/pg', driver: 'copy' },
    workload: { name: 'manta' },
    load: { concurrency: 4, statsIntervalS: 2 },
    prepare: { rows: 1000 }
  })
  t.equal(
    formatMix(plan.load.mix),
    'insert_row=60,read_row=40,update_row=0,injected_error=0,fetch_max=0',
    "the plan's mix, every type weighed"
  )
  const fewDead = { metric: 'dead_fraction', table: 'test_table', op: '<', value: 0.05 }
  t.same(
    plan.variants[0].steps.map(({ label: _label, ...step }) => step),
    [
      { kind: 'load', seconds: 10 },
      { kind: 'action', action: { action: 'vacuum', table: 'test_table' } },
      { kind: 'wait', until: 'action', timeoutS: 300 },
      { kind: 'concurrency', factor: 2 },
      { kind: 'load', seconds: 5, concurrency: 8 },
      { kind: 'wait', until: { ...fewDead, text: 'dead_fraction(test_table) < 0.05' }, timeoutS: 60 }
    ]
  )
  t.equal(plan.variants[0].steps[3].label, 'variants[0].steps[3]', 'each step named where it is in the plan')
  const variants = [{ name: 'v', steps: [{ load: 1 }] }]
  const noDataDir = { name: 'p', server: { url: 'postgres://h/db' }, prepare: { rows: 1 }, variants }
  await t.rejects(parsePlan(noDataDir, { baseDir: '/' }), { message: /^server\.data_dir: missing/ })
})
