// Schedules, conditions and retention specs, fuzzed: a schedule file (YAML
// or JSON text, or the data it holds) parses into rules whose timers a
// setTimeout can hold, or is refused with one line (exit 2); so does a
// condition, and a retention action as a schedule, a plan or the CLI gives it.
import t from 'tap'
import fc from 'fast-check'
import YAML from 'yaml'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseSchedule, loadSchedule } from '../../lib/sidecar/schedule.js'
import { parseCondition } from '../../lib/sidecar/conditions.js'
import { checkRetentionSpec } from '../../lib/sidecar/retention-spec.js'
import { MAX_TIMER_S } from '../../lib/helpers/durations.js'
import { fuzzTest, hostileText, jsonish, mutated, cliRefuses, cliSampleTest, sample } from '../helpers/fuzz.js'

const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-fuzz-schedule-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
const NOW = new Date('2026-06-12T10:00:00Z')

const CONDITIONS = [
  'dead_fraction(test_table) > 0.2',
  'table_bytes(test_table) > 2 GB',
  'xid_age(test_table) > 150000000',
  'xid_age > 1e6',
  'disk_free < 10 GB',
  'dead_tuples(public.t) >= 1000',
  'live_tuples( t ) <= 5',
  ' dead_fraction(x)>0.5 '
]
const CONDITION_PIECES = [
  'dead_fraction',
  'xid_age',
  'disk_free',
  'bogus',
  '(',
  ')',
  '(t)',
  '>',
  '<',
  '>=',
  '<=',
  '=',
  '==',
  '!=',
  ' ',
  '0.2',
  '2 GB',
  '1e6',
  'kb',
  'constructor',
  '$',
  '.'
]

/** @param {import('../../lib/sidecar/schedule.js').Rule[]} rules */
function wrongRules(rules) {
  for (const rule of rules) {
    if (rule.afterS !== undefined && !(rule.afterS >= 0 && rule.afterS <= MAX_TIMER_S)) {
      return `${rule.label}: after ${rule.afterS} s`
    }
    if (rule.everyS !== undefined && !(rule.everyS > 0 && rule.everyS <= MAX_TIMER_S)) {
      return `${rule.label}: every ${rule.everyS} s`
    }
    if (!(rule.cooldownS >= 0 && Number.isFinite(rule.cooldownS))) return `${rule.label}: cooldown ${rule.cooldownS}`
    if (rule.at !== undefined && Number.isNaN(rule.at.getTime())) return `${rule.label}: at an invalid date`
    if (rule.condition && !Number.isFinite(rule.condition.value)) {
      return `${rule.label}: condition value ${rule.condition.value}`
    }
  }
  return null
}

const conditions = await fuzzTest(
  t,
  'conditions (parseCondition)',
  hostileText(CONDITIONS, { pieces: CONDITION_PIECES }),
  text => parseCondition(text, 'when'),
  {
    runs: 4000,
    valid: c => (Number.isFinite(c.value) ? null : `value ${c.value}`)
  }
)

// Schedules as data: valid rules with one field made hostile.
const RULE = [
  { action: 'checkpoint', every: '5m' },
  { action: 'analyze', table: 'test_table', after: '10m' },
  { action: 'vacuum', table: 'test_table', at: '03:00' },
  { action: 'vacuum', table: 'test_table', freeze: true, when: 'dead_fraction(test_table) > 0.2', cooldown: '1m' },
  { action: 'fillfactor', table: 't', fillfactor: 70, after: 0 },
  { action: 'delete', table: 'tsbs_cpu', older_than: '10m', yes: true, every: '1m', batch: 5000 },
  {
    action: 'drop-partitions',
    table: 'public.tsbs_cpu',
    older_than: '1d',
    relative_to: 'clock',
    yes: true,
    at: '2026-06-13T00:00:00Z'
  }
]
const FIELDS = [
  'action',
  'table',
  'freeze',
  'full',
  'analyze',
  'verbose',
  'fillfactor',
  'older_than',
  'relative_to',
  'batch',
  'time_column',
  'yes',
  'after',
  'at',
  'every',
  'when',
  'once',
  'cooldown',
  'bogus',
  '__proto__',
  'constructor'
]
const STRINGS = hostileText([
  '5m',
  '10m',
  '1h30m',
  '0',
  '03:00',
  '24:00',
  '23:59:60',
  '2026-06-13T00:00:00Z',
  'vacuum',
  'checkpoint',
  'delete',
  'test_table',
  'public.t',
  'a.b.c',
  'dead_fraction(t) > 0.2',
  'data',
  'clock',
  '30d',
  '25d'
])
const value = fc.oneof(jsonish, STRINGS, fc.constantFrom(30 * 86400, 25 * 86400, MAX_TIMER_S, MAX_TIMER_S + 1, 1e300))
const rule = fc
  .tuple(fc.constantFrom(...RULE), fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.option(value)), { maxLength: 3 }))
  .map(([base, changes]) => {
    /** @type {Record<string, unknown>} */
    const copy = { ...base }
    for (const [key, v] of changes) {
      if (v === null) delete copy[key]
      else Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true, configurable: true })
    }
    return copy
  })
const schedules = fc.oneof(
  fc.array(rule, { minLength: 1, maxLength: 4 }).map(actions => ({ actions })),
  fc.array(rule, { maxLength: 3 }),
  jsonish
)
await fuzzTest(t, 'schedules as data (parseSchedule)', schedules, data => parseSchedule(data, NOW), {
  runs: 3000,
  valid: wrongRules
})

// Schedule files: YAML and JSON texts, mutated.
const TEXTS = [
  YAML.stringify({ actions: RULE }),
  JSON.stringify({ actions: RULE }, null, 2),
  'actions:\n  - action: checkpoint\n    every: 5m\n',
  '- action: vacuum\n  table: t\n  after: 1m\n'
]
const YAML_PIECES = [
  '\n',
  '  ',
  '- ',
  ': ',
  '{',
  '}',
  '[',
  ']',
  '&a',
  '*a',
  '<<: *a',
  '!!binary',
  '!!js/function',
  '%YAML 1.2\n',
  '---\n',
  '...\n',
  '? ',
  '|',
  '>',
  '"',
  "'",
  '#',
  'every: 30d',
  'after: .inf',
  'every: .nan',
  '__proto__: {}'
]
let file = 0
const files = await fuzzTest(
  t,
  'schedule files (loadSchedule, YAML and JSON)',
  fc.tuple(mutated(fc.constantFrom(...TEXTS), YAML_PIECES), fc.boolean()),
  async ([text, json]) => {
    const name = path.join(dir, `s${file++ % 50}.${json ? 'json' : 'yaml'}`)
    await writeFile(name, text)
    return loadSchedule(name, NOW)
    // a file of 100 kB takes YAML some 100 ms to read: not a hang
  },
  { runs: 800, slowMs: 2000, valid: wrongRules }
)

// Retention actions, as a schedule or plan gives them (the CLI's go through the same check).
const RETENTION = [
  { action: 'delete', table: 'tsbs_cpu', older_than: '10m', yes: true },
  {
    action: 'delete',
    table: 'public.tsbs_cpu',
    older_than: 600,
    batch: 100,
    time_column: 'ts',
    relative_to: 'clock',
    yes: true
  },
  { action: 'drop-partitions', table: 'fleet_points', older_than: '1h30m', yes: true }
]
const RETENTION_FIELDS = ['action', 'table', 'older_than', 'relative_to', 'batch', 'time_column', 'yes', 'bogus']
const retentionSpec = fc
  .tuple(
    fc.constantFrom(...RETENTION),
    fc.array(fc.tuple(fc.constantFrom(...RETENTION_FIELDS), fc.option(value)), { maxLength: 3 })
  )
  .map(([base, changes]) => {
    /** @type {Record<string, unknown>} */
    const copy = { ...base }
    for (const [key, v] of changes) {
      if (v === null) delete copy[key]
      else copy[key] = v
    }
    return copy
  })
await fuzzTest(
  t,
  'retention specs (checkRetentionSpec)',
  retentionSpec,
  spec => checkRetentionSpec(/** @type {any} */ (spec), 'actions[0]'),
  {
    runs: 3000,
    valid: r =>
      Number.isFinite(r.olderThanS) && r.olderThanS > 0 && Number.isInteger(r.batch)
        ? null
        : `gave ${JSON.stringify(r)}`
  }
)

cliSampleTest(t, 'the CLI refuses a sample: exit 2, one line, nothing created', async t => {
  const badConditions = sample(conditions.refusals, 3)
  const badFiles = sample(
    files.refusals.map(input => /** @type {[string, boolean]} */ (input)[0]),
    3
  )
  await Promise.all([
    ...badConditions.map(async (when, i) => {
      const name = path.join(dir, `cli-condition-${i}.json`)
      await writeFile(name, JSON.stringify({ actions: [{ action: 'checkpoint', when }] }))
      return cliRefuses(
        t,
        s => ['sidecar', '--schedule', name, '-p', '0', '--data-dir', s.dataDir, '--events', s.events],
        `condition ${JSON.stringify(when).slice(0, 60)}`
      )
    }),
    ...badFiles.map(async (text, i) => {
      const name = path.join(dir, `cli-schedule-${i}.yaml`)
      await writeFile(name, text)
      return cliRefuses(
        t,
        s => ['run', '--schedule', name, '-p', '0', '-d', '1', '--data-dir', s.dataDir, '--events', s.events],
        `schedule file ${JSON.stringify(text).slice(0, 60)}`
      )
    }),
    cliRefuses(
      t,
      s => ['delete', 'tsbs_cpu', '--older-than', '1h\n2h', '--yes', '--data-dir', s.dataDir, '--events', s.events],
      'delete --older-than'
    ),
    cliRefuses(
      t,
      s => ['drop-partitions', 'a.b.c', '--older-than', '1h', '--yes', '--data-dir', s.dataDir, '--events', s.events],
      'drop-partitions a.b.c'
    )
  ])
})
