// --mix, fuzzed: every text either parses into weights that pick a type, or
// is refused with one line (InputError, exit 2). A sample of the refused
// texts goes through the CLI too.
import t from 'tap'
import fc from 'fast-check'
import { parseMix, pickType, formatMix } from '../../lib/config/mix.js'
import { fuzzTest, hostileText, cliRefuses, cliSampleTest, sample } from '../helpers/fuzz.js'

const MANTA = ['insert_row', 'read_row', 'update_row', 'injected_error', 'fetch_max']
const TSBS = ['insert_batch', 'late_update', 'query_lastpoint', 'query_groupby_hour']
const WEIGHTS = [
  '0',
  '1',
  '60',
  '0.5',
  '.5',
  '5.',
  '1e3',
  '1e-3',
  '1e308',
  '1e-320',
  '00',
  '007',
  ' 3 ',
  '-1',
  '+2',
  '1/2',
  '٣',
  'NaN',
  ''
]

const valid = [
  'insert_row=60,read_row=20,update_row=10,injected_error=5,fetch_max=5',
  'insert_row=1',
  'read_row=1,insert_row=0',
  ' insert_row = 2 , read_row = 3 ',
  'insert_row=1,,read_row=2,',
  'fetch_max=0.25,update_row=1e2',
  'insert_batch=1',
  'insert_batch=95,late_update=3,query_lastpoint=1,query_groupby_hour=1'
]
const pieces = [...MANTA, ...TSBS, ...WEIGHTS, '=', ',', ' ', '=' + '9'.repeat(309), 'insert_row=1e308,read_row=1e308']

/**
 * @param {import('../../lib/config/mix.js').Mix} mix
 * @param {readonly string[]} types
 */
function wrongWith(mix, types) {
  if (mix.weights.length !== types.length) return 'a weight per type'
  if (!mix.weights.every(w => Number.isFinite(w) && w >= 0)) return `weights ${mix.weights}`
  let previous = 0
  for (const c of mix.cumulative) {
    if (!(c >= previous && c <= 1)) return `cumulative shares ${[...mix.cumulative]}`
    previous = c
  }
  if (mix.cumulative[types.length - 1] !== 1) return 'the last cumulative share is not 1'
  for (const r of [0, 1e-12, 0.25, 0.5, 0.999999, 1 - 2 ** -53]) {
    const i = pickType(mix, r)
    if (!(i >= 0 && i < types.length)) return `pickType(${r}) = ${i}`
    if (mix.weights[i] === 0) return `pickType(${r}) picked ${types[i]} of weight 0`
  }
  // what formatMix prints parses back to the same weights
  const again = parseMix(formatMix(mix), types)
  if (again.weights.join() !== mix.weights.join()) return `formatMix does not read back: ${formatMix(mix)}`
  return null
}

const refused = []
for (const [name, types] of /** @type {[string, string[]][]} */ ([
  ['manta', MANTA],
  ['tsbs-cpu', TSBS]
])) {
  const result = await fuzzTest(
    t,
    `--mix (${name}'s types)`,
    hostileText(valid, { pieces }),
    text => parseMix(text, types),
    {
      runs: 2500,
      valid: mix => wrongWith(mix, types),
      refused: err => (/^--mix: /.test(err.message) ? null : `the message does not name --mix: ${err.message}`)
    }
  )
  if (name === 'manta') refused.push(...result.refusals)
}

// weights straight from numbers: whatever their size, the shares are sane
await fuzzTest(
  t,
  '--mix (numeric weights)',
  fc.array(fc.oneof(fc.double({ min: 0, noNaN: true }), fc.constantFrom(0, 1, 1e308, 5e-324, Number.MAX_VALUE)), {
    minLength: MANTA.length,
    maxLength: MANTA.length
  }),
  weights => parseMix(weights.map((w, i) => `${MANTA[i]}=${w}`).join(','), MANTA),
  { runs: 1500, valid: mix => wrongWith(mix, MANTA) }
)

cliSampleTest(t, 'the CLI refuses a sample of them: exit 2, one line', async t => {
  const bad = sample(refused, 6, text => !text.startsWith('-'))
  await Promise.all(
    bad.map(text =>
      cliRefuses(
        t,
        ({ dataDir, events }) => [
          'run',
          '--mix',
          text,
          '-p',
          '0',
          '-d',
          '1',
          '--data-dir',
          dataDir,
          '--events',
          events
        ],
        '--mix'
      )
    )
  )
})
