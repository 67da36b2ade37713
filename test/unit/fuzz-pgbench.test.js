// pgbench's command-line inputs, fuzzed where the script and expression
// fuzzers (pgbench-script-fuzz, pgbench-expression-properties) do not reach:
// -f FILE@WEIGHT, -b NAME@WEIGHT, -D NAME=VALUE, --random-seed and -s, as
// the run command gives them to chooseWorkload, and init's options. Each
// makes a workload, or is refused with one line (exit 2).
import t from 'tap'
import fc from 'fast-check'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { chooseWorkload } from '../../lib/workloads/choose.js'
import { parseInitOptions, InitOptionError } from '../../lib/pgbench/init.js'
import { InputError } from '../../lib/errors.js'
import { fuzzTest, hostileText, cliRefuses, cliSampleTest, sample } from '../helpers/fuzz.js'

const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-fuzz-pgbench-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
await writeFile(path.join(dir, 'a.sql'), '\\set aid random(1, 100000 * :scale)\nSELECT :aid;\n')

const WEIGHTS = [
  '@1',
  '@0',
  '@10',
  '@-1',
  '@+2',
  '@ 3',
  '@2147483647',
  '@2147483648',
  '@9223372036854775808',
  '@',
  '@x',
  '@1.5',
  '@@1',
  '@ '
]
const BUILTINS = hostileText(
  ['tpcb-like', 'simple-update', 'select-only', 'tpcb', 's', 'si', 'select-only@2', 'tpcb-like@0', 'nosuch@1'],
  { pieces: WEIGHTS }
)
const FILES = hostileText(['a.sql', 'a.sql@2', 'a.sql@0', 'nosuch.sql', 'a.sql@x'], { pieces: WEIGHTS }).filter(
  f => !f.startsWith('/') && !f.includes('..') && f !== '-' && !f.startsWith('-@')
)
const DEFINES = hostileText(['x=1', 'aid=5', 'x=', '=1', 'x', 'scale=2', 'é=1', 'x y=1', '_a1=a=b', 'client_id=3'])
const SEEDS = hostileText(['time', 'rand', '0', '42', '-1', '18446744073709551616', ' 7', '0x10', 'seed'])
const SCALES = fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 1000 }))

const choice = fc.record({
  files: fc.array(FILES, { maxLength: 2 }),
  builtins: fc.array(BUILTINS, { maxLength: 2 }),
  defines: fc.array(DEFINES, { maxLength: 3 }),
  randomSeed: fc.option(SEEDS, { nil: undefined }),
  scale: SCALES,
  protocol: fc.constantFrom('prepared', 'extended', 'simple')
})
const result = await fuzzTest(
  t,
  '-f, -b, -D, --random-seed, -s (chooseWorkload)',
  choice,
  c => chooseWorkload({ workload: 'pgbench', ...c, baseDir: dir }),
  {
    runs: 2500,
    valid: w => (w.types.length > 0 && w.weights.some(x => x > 0) ? null : 'no script of weight above 0')
  }
)

// pgloadgen init's options: InitOptionError, made a usage error by the command
const text = (/** @type {string[]} */ valid) => fc.option(hostileText(valid), { nil: undefined })
const init = fc.record({
  scale: text(['1', '10', '0', '-1', '1.5', '1e3', '2147483648', 'x']),
  fillfactor: text(['100', '10', '9', '101', '50.5', '']),
  initSteps: text(['dtgvp', 'dtGvpf', 'x', '', 'dd', 'D']),
  partitions: text(['0', '4', '-1', '2147483648']),
  partitionMethod: text(['range', 'hash', 'list', '']),
  foreignKeys: fc.boolean(),
  unlogged: fc.boolean()
})
const inits = await fuzzTest(
  t,
  'init options (parseInitOptions)',
  init,
  options => {
    try {
      return parseInitOptions(/** @type {any} */ (options))
    } catch (err) {
      // as pgloadgen init reports it
      if (err instanceof InitOptionError) throw new InputError(err.message)
      throw err
    }
  },
  { runs: 2000 }
)

cliSampleTest(t, 'the CLI refuses a sample: exit 2, one line, nothing created', async t => {
  const usable = (/** @type {string} */ s) => !/^\s*-/.test(s)
  // each refused on its own (a refused command line may hold good ones)
  const refusedAlone = async (/** @type {Partial<Parameters<typeof chooseWorkload>[0]>} */ c) => {
    try {
      await chooseWorkload({
        workload: 'pgbench',
        files: [],
        builtins: [],
        defines: [],
        randomSeed: undefined,
        scale: null,
        protocol: 'prepared',
        baseDir: dir,
        ...c
      })
      return false
    } catch {
      return true
    }
  }
  const builtins = []
  for (const b of result.refusals.flatMap(c => /** @type {any} */ (c).builtins))
    if (await refusedAlone({ builtins: [b] })) builtins.push(b)
  const defines = []
  for (const d of result.refusals.flatMap(c => /** @type {any} */ (c).defines))
    if (await refusedAlone({ builtins: ['select-only'], defines: [d] })) defines.push(d)
  const scales = sample(
    inits.refusals.map(o => /** @type {any} */ (o).scale).filter(s => typeof s === 'string' && !/^\d+$/.test(s.trim())),
    2,
    usable
  )
  await Promise.all([
    ...sample(builtins, 3, usable).map(b =>
      cliRefuses(t, s => ['run', '-b', b, '-p', '0', '-d', '1', '--data-dir', s.dataDir, '--events', s.events], '-b')
    ),
    ...sample(defines, 2, usable).map(d =>
      cliRefuses(
        t,
        s => ['run', '-b', 'select-only', '-D', d, '-p', '0', '-d', '1', '--data-dir', s.dataDir, '--events', s.events],
        '-D'
      )
    ),
    ...scales.map(x => cliRefuses(t, s => ['init', '-s', x, '--data-dir', s.dataDir], 'init -s'))
  ])
})
