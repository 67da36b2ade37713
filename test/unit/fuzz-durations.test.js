// Durations, sizes and whole numbers, fuzzed: the schedule's and plan's
// durations (90s, 1h30m, 500ms), condition sizes (2 GB, 150M), and the
// CLI's --duration, timeouts, --stats-interval and counts. Each parses to a
// finite number in its range, or is refused with one line (exit 2).
import t from 'tap'
import fc from 'fast-check'
import { parseOffset, parseQuantity, MAX_TIMER_S } from '../../lib/helpers/durations.js'
import { parseDuration, parseInteger } from '../../lib/config/number-flags.js'
import { parseStatsInterval } from '../../lib/cli/stats-options.js'
import { fuzzTest, hostileText, jsonish, cliRefuses, cliSampleTest, sample } from '../helpers/fuzz.js'

const OFFSETS = [
  '90',
  '90s',
  '10m',
  '1h30m',
  '500ms',
  '1d',
  '0',
  '0.5',
  '1.5h',
  '2h45m10s',
  '1d2h',
  ' 15m ',
  '1e3',
  '1h 30m',
  '-5s'
]
const OFFSET_PIECES = [
  'ms',
  's',
  'm',
  'h',
  'd',
  'w',
  'y',
  'M',
  'S',
  'sec',
  'min',
  ' ',
  '.',
  '0',
  '1',
  '10',
  '60',
  '999999999999'
]
const DURATIONS = ['90', '90s', '15m', '2h', '4d', '1.5', '0', '0.001', ' 20 ', '20 s', '1h30m', '1e2', '24d', '25d']
const SIZES = [
  '2 GB',
  '500MB',
  '150000000',
  '150M',
  '0.2',
  '1e6',
  '10 kb',
  '3 TB',
  '7k',
  '1g',
  '0',
  '1 B',
  '2 gib',
  '5 constructor'
]
const INTEGERS = [
  '8',
  '1',
  '0',
  '10000',
  '10001',
  '-3',
  '2.5',
  'many',
  '',
  ' 4 ',
  '007',
  '+4',
  '1e3',
  '0x10',
  '9007199254740993'
]
const finite = (/** @type {number} */ n, min = 0, max = Infinity) =>
  typeof n === 'number' && Number.isFinite(n) && n >= min && n <= max ? null : `gave ${n}`

const numberish = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 1, -1, 1e308, Infinity, -Infinity, NaN, 5e-324, 2 ** 53)
)

await fuzzTest(
  t,
  'durations of schedules, plans and options (parseOffset), text',
  hostileText(OFFSETS, { pieces: OFFSET_PIECES }),
  text => parseOffset(text, 'after'),
  { runs: 4000, valid: n => finite(n) }
)
await fuzzTest(
  t,
  'durations (parseOffset), any JSON or YAML value',
  fc.oneof(jsonish, numberish),
  value => parseOffset(value, 'after'),
  { runs: 2000, valid: n => finite(n) }
)
await fuzzTest(
  t,
  'sizes of conditions and plans (parseQuantity)',
  hostileText(SIZES, {
    pieces: ['kb', 'mb', 'gb', 'tb', 'k', 'm', 'g', 'b', 'KB', 'constructor', 'tostring', 'valueof', ' ', '.', '9']
  }),
  text => parseQuantity(text, 'table_size'),
  { runs: 3000, valid: n => finite(n) }
)
const durations = await fuzzTest(
  t,
  'CLI durations (--duration, --connect-timeout, …)',
  hostileText(DURATIONS, { pieces: ['s', 'm', 'h', 'd', 'ms', ' ', '.', '9'] }),
  text => parseDuration(text, '--duration'),
  {
    runs: 3000,
    // a timer of the run waits that long: setTimeout's limit is the bound
    valid: n => finite(n, Number.MIN_VALUE, MAX_TIMER_S),
    refused: err =>
      err.message.startsWith('--duration ') ? null : `the message does not name the flag: ${err.message}`
  }
)
await fuzzTest(t, '--stats-interval', hostileText(DURATIONS), text => parseStatsInterval(text), {
  runs: 1500,
  valid: n => finite(n, 1, 3600)
})
const integers = await fuzzTest(
  t,
  'CLI whole numbers (-c, -t, -s, --http-port, --pg-port, --batch)',
  hostileText(INTEGERS),
  text => parseInteger(text, '--concurrency', { min: 1, max: 10000 }),
  {
    runs: 2500,
    valid: n => (Number.isSafeInteger(n) && n >= 1 && n <= 10000 ? null : `gave ${n}`)
  }
)
await fuzzTest(
  t,
  'whole numbers without an upper bound (-t)',
  hostileText(INTEGERS),
  text => parseInteger(text, '--transactions', { min: 1 }),
  {
    runs: 1500,
    valid: n => (Number.isSafeInteger(n) && n >= 1 ? null : `gave ${n}`)
  }
)

cliSampleTest(t, 'the CLI refuses a sample of them: exit 2, one line, nothing created', async t => {
  const runArgs = (/** @type {{ dataDir: string, events: string }} */ s) => [
    '-p',
    '0',
    '--data-dir',
    s.dataDir,
    '--events',
    s.events
  ]
  const notFlag = (/** @type {string} */ text) => !/^\s*-/.test(text)
  await Promise.all([
    ...sample(durations.refusals, 3, notFlag).map(text => cliRefuses(t, s => ['run', '-d', text, ...runArgs(s)], '-d')),
    ...sample(durations.refusals, 2, notFlag).map(text =>
      cliRefuses(t, s => ['run', '-d', '5', '--shutdown-timeout', text, ...runArgs(s)], '--shutdown-timeout')
    ),
    ...sample(durations.refusals, 2, notFlag).map(text =>
      cliRefuses(
        t,
        s => ['stats', '--stats-interval', text, '--data-dir', s.dataDir, '-p', '0'],
        'stats --stats-interval'
      )
    ),
    ...sample(integers.refusals, 3, notFlag).map(text =>
      cliRefuses(t, s => ['run', '-c', text, '-d', '5', ...runArgs(s)], '-c')
    )
  ])
})
