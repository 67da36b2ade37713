// A workload's own options, fuzzed: the flags of tsbs-cpu, tgres and fleet
// (and of a module's, the job queue's), as flags give them (text) and as a
// plan gives them (JSON or YAML values). The workload is made, or the
// options are refused with one line naming the option (exit 2).
import t from 'tap'
import fc from 'fast-check'
import { loadWorkload, rawWorkloadModule } from '../../lib/workloads/index.js'
import { REPO } from '../helpers/cli.js'
import { fuzzTest, hostileText, jsonish, cliRefuses, cliSampleTest, sample } from '../helpers/fuzz.js'
import { camelCase } from '../../lib/workloads/options.js'

const JOB_QUEUE = `${REPO}notes/workloads/job-queue.js`
const TEXT = {
  integer: [
    '1',
    '100',
    '0',
    '-1',
    '1.5',
    '1e3',
    '1e400',
    '0x10',
    '2147483648',
    '9007199254740993',
    '1000000',
    '10000000',
    ' 7 ',
    'ten'
  ],
  number: ['0', '0.5', '1', '-0.1', '1.0001', '1e-3', 'NaN', 'Infinity', '.5', '5.'],
  duration: [
    '10s',
    '1m',
    '0',
    '0.5',
    '500ms',
    '1h30m',
    '30d',
    '1e3',
    '-1s',
    '10',
    '0.0001s',
    '2147483648s',
    '9'.repeat(400) + 's'
  ],
  string: ['now', '2016-01-01T00:00:00Z', '2016-01-01', '2016-13-45T99:99:99Z', '2016-01-01 12:00', 'yesterday', ''],
  boolean: ['true', 'false', 'yes', '1', ''],
  choice: ['simulated', 'real', 'copy', 'copy-binary', 'insert', 'agent', 'setup', 'COPY', 'sim']
}

for (const spec of ['tsbs-cpu', 'tgres', 'fleet', JOB_QUEUE]) {
  const name = spec === JOB_QUEUE ? 'job-queue (a module)' : spec
  const module = /** @type {any} */ (await rawWorkloadModule(spec))
  const specs = /** @type {Record<string, import('../../lib/workloads/options.js').OptionSpec>} */ (module.options)
  const names = Object.keys(specs)
  const entry = fc.oneof(
    ...names.map(option =>
      fc.tuple(
        fc.constantFrom(option, camelCase(option)),
        hostileText([
          ...TEXT[specs[option].type],
          ...(specs[option].choices ?? []),
          String(specs[option].default ?? '1')
        ])
      )
    ),
    fc.tuple(fc.constantFrom(...names), fc.oneof(jsonish, fc.boolean())),
    fc.tuple(fc.constantFrom('bogus', 'concurrency', 'hosts', 'Hosts', '__proto__', 'constructor', ''), jsonish)
  )
  const options = fc.array(entry, { maxLength: 4 }).map(entries => {
    /** @type {Record<string, unknown>} */
    const given = {}
    for (const [key, value] of entries)
      Object.defineProperty(given, key, { value, enumerable: true, writable: true, configurable: true })
    return given
  })
  await loadWorkload(spec) // warm: the import
  const result = await fuzzTest(
    t,
    `options of ${name}`,
    options,
    given => loadWorkload(spec, { options: given, optionsWhere: '--' }),
    {
      runs: 1500,
      valid: w => (w.config === undefined && module.configure ? 'no config' : null),
      refused: err =>
        /^(--\S*: |workload \S+: --\S+)/.test(err.message)
          ? null
          : `the message does not name the option: ${err.message}`
    }
  )
  cliSampleTest(t, `the CLI refuses a sample of ${name}'s: exit 2, one line`, async t => {
    const flags = result.refusals.flatMap(given =>
      Object.entries(/** @type {Record<string, unknown>} */ (given))
        .filter(([key, value]) => names.includes(key) && typeof value === 'string' && specs[key].type !== 'boolean')
        .map(([key, value]) => [key, value])
    )
    // each refused on its own (a refused set of options may hold good ones)
    const alone = []
    for (const [key, value] of flags) {
      try {
        await loadWorkload(spec, { options: { [key]: value } })
      } catch {
        alone.push(`${key}\t${value}`)
      }
    }
    const bad = sample(alone, 3, text => !/\t\s*-/.test(text))
    await Promise.all(
      bad.map(text => {
        const key = text.slice(0, text.indexOf('\t'))
        const value = text.slice(text.indexOf('\t') + 1)
        return cliRefuses(
          t,
          s => [
            'run',
            '-w',
            spec,
            `--${key}`,
            value,
            '-p',
            '0',
            '-d',
            '1',
            '--data-dir',
            s.dataDir,
            '--events',
            s.events
          ],
          `--${key}`
        )
      })
    )
  })
}
