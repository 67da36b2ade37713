// Shared pieces of the fuzz tests (test/unit/fuzz-*.test.js): generators of
// hostile, near-valid input, and the one property every parser a user feeds
// must have: it returns, or it throws an InputError (exit code 2) whose
// message is one line, quickly, and nothing else.
import fc from 'fast-check'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { InputError } from '../../lib/errors.js'
import { printable } from '../../lib/helpers/quote.js'
import { exitCodeFor } from '../../lib/cli/exit-codes.js'
import { runCli, lines } from './cli.js'

// A fixed seed, so that a failure replays; PGLOADGEN_FUZZ_SEED picks another.
export const SEED = Number(process.env.PGLOADGEN_FUZZ_SEED ?? 20260612)
// Scales every count (PGLOADGEN_FUZZ_SCALE=10 for a long night run).
export const SCALE = Number(process.env.PGLOADGEN_FUZZ_SCALE ?? 1)
// A parse that takes longer than this is a hang in the making (a regular
// expression that backtracks, a loop over a huge number). Counted in this
// process's CPU time: a hang costs CPU every time, while other processes'
// load on a shared machine stretches the wall clock but not our CPU time.
export const SLOW_MS = 250

/** Milliseconds of CPU time this process has used (user and system). */
function cpuMs() {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
// An error message longer than this echoes too much of its input.
export const LONG_MESSAGE = 1000

/** Pieces that break parsers: separators, number look-alikes, unicode, controls. */
export const NASTY = [
  '',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\v',
  '\f',
  '\u0000',
  '\u0007',
  '\u001b[31m',
  '\u007f',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u200b',
  'NaN',
  'nan',
  'Infinity',
  '-Infinity',
  '+Infinity',
  'inf',
  '1e400',
  '-1e400',
  '1e-400',
  '1e308',
  '-0',
  '0x10',
  '0b11',
  '0o17',
  '1_000',
  '9'.repeat(40),
  '9'.repeat(400),
  '0.'.padEnd(60, '0') + '1',
  '4294967296',
  '9007199254740993',
  '-9223372036854775809',
  '2147483648',
  '\u0661\u0662',
  '\uff11\uff12',
  '\u00bd',
  '\u2167',
  'undefined',
  'null',
  'true',
  'false',
  '[]',
  '{}',
  '[1]',
  '{"a":1}',
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'then',
  '\u{1F600}',
  '\uD800',
  '\uDC00',
  'é',
  'ß',
  'İ',
  '%00',
  '%',
  '%zz',
  '\\',
  '\\n',
  '"',
  "'",
  '`',
  '$',
  '${x}',
  '=',
  '==',
  ',',
  ',,',
  '@',
  '@@',
  ':',
  '::',
  '/',
  '//',
  '?',
  '#',
  '&',
  ';',
  '|',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '<',
  '>',
  '*',
  '+',
  '-',
  '.',
  '..',
  '...',
  'x'.repeat(300)
]

/**
 * A string with a few mutations: fragments inserted, parts deleted or
 * repeated, case flipped.
 * @param {fc.Arbitrary<string>} base
 * @param {readonly string[]} [fragments]
 */
export function mutated(base, fragments = NASTY) {
  const op = fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(...fragments), fc.integer({ min: 0, max: 5 }))
  return fc.tuple(base, fc.array(op, { minLength: 1, maxLength: 3 })).map(([text, ops]) => {
    let s = text
    for (const [a, b, fragment, kind] of ops) {
      const i = s.length === 0 ? 0 : a % (s.length + 1)
      const j = Math.min(s.length, i + (b % 8))
      switch (kind) {
        case 0:
          s = s.slice(0, i) + fragment + s.slice(i)
          break // insert
        case 1:
          s = s.slice(0, i) + s.slice(j)
          break // delete
        case 2:
          s = s.slice(0, i) + fragment + s.slice(j)
          break // replace
        case 3:
          s = s.slice(0, i) + s.slice(i, j).repeat(2 + (b % 5000)) + s.slice(j)
          break // repeat, sometimes a lot
        case 4:
          s = s.slice(0, i) + s.slice(i, j).toUpperCase() + s.slice(j)
          break
        default:
          s = fragment + s + fragment
      }
    }
    return s
  })
}

/**
 * Realistic hostile text around valid examples: the examples, mutations of
 * them, soups of their pieces, and plain random strings.
 * @param {readonly string[]} valid
 * @param {{ pieces?: readonly string[], fragments?: readonly string[] }} [options]
 */
export function hostileText(valid, { pieces = [], fragments = NASTY } = {}) {
  const soup = fc
    .array(fc.constantFrom(...valid, ...pieces, ...fragments), { maxLength: 12 })
    .map(parts => parts.join(''))
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...valid) },
    { weight: 6, arbitrary: mutated(fc.constantFrom(...valid), [...fragments, ...pieces]) },
    { weight: 3, arbitrary: soup },
    { weight: 1, arbitrary: fc.constantFrom(...fragments) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    // very long: a parser must not be quadratic in it
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...valid, ' ', '1', 'a', '\t'), fc.integer({ min: 1000, max: 50000 }))
        .map(([s, n]) => s.repeat(Math.ceil(n / Math.max(1, s.length))))
    }
  )
}

/** Values a JSON or YAML document can hold where a scalar is expected. */
export const jsonish = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1,
    0.5,
    -0,
    1e308,
    -1e308,
    5e-324,
    Infinity,
    -Infinity,
    NaN,
    2 ** 53,
    2 ** 31,
    '',
    ' ',
    '0',
    '1',
    'x',
    [],
    {}
  ),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 20 }),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 3 }),
  // as JSON.parse and YAML.parse make them: with Object's prototype
  fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), {
    maxKeys: 3,
    noNullPrototype: true
  })
)

/**
 * Whether a message is one line: no line break of any kind.
 * @param {string} message
 */
export function isOneLine(message) {
  return !/[\n\r\u2028\u2029\u0085]/.test(message)
}

/**
 * What is wrong with a thrown error, or null when it is a proper refusal.
 * @param {unknown} err
 */
export function refusalProblem(err) {
  if (!(err instanceof InputError)) return `threw ${err instanceof Error ? `${err.name}: ${err.stack}` : String(err)}`
  if (exitCodeFor(err) !== 2) return `exit code ${exitCodeFor(err)}`
  if (err.message.trim() === '') return 'empty message'
  if (!isOneLine(err.message)) return `message of more than one line: ${JSON.stringify(err.message)}`
  if (err.message.length > LONG_MESSAGE) {
    return `message of ${err.message.length} characters: ${JSON.stringify(err.message.slice(0, 200))}…`
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(err.message)) {
    return `control characters in the message: ${JSON.stringify(err.message)}`
  }
  return null
}

/**
 * Runs a parser on fuzzed input and checks the property; `valid` checks what
 * it returned. Counts parsed and refused cases.
 * @template I
 * @param {import('tap').Test} t
 * @param {string} name
 * @param {fc.Arbitrary<I>} arbitrary
 * @param {(input: I) => unknown} parse        may return a promise
 * @param {{ runs?: number, slowMs?: number, valid?: (value: any, input: I) => string | null,
 *     refused?: (err: InputError, input: I) => string | null }} [options]
 *   valid / refused: what is wrong with a result or a refusal, or null
 */
export async function fuzz(
  t,
  name,
  arbitrary,
  parse,
  { runs = 2000, slowMs = SLOW_MS, valid = () => null, refused = () => null } = {}
) {
  const numRuns = Math.max(1, Math.round(runs * SCALE * (CLI_SAMPLES ? CLI_SAMPLE_SHARE : 1)))
  let parsed = 0
  let refusedCount = 0
  let cases = 0
  /** @type {unknown[]} */
  const refusals = []
  const property = fc.asyncProperty(arbitrary, async input => {
    cases++
    const started = cpuMs()
    let value
    let outcome = 'parsed'
    try {
      value = await parse(input)
    } catch (err) {
      const problem = refusalProblem(err) ?? refused(/** @type {InputError} */ (err), input)
      if (problem !== null) throw new Error(problem, { cause: err })
      outcome = 'refused'
    }
    const ms = cpuMs() - started
    if (ms > slowMs) {
      // a hang in the making is slow every time; a collection that fell
      // into this parse is not: timed again
      const again = cpuMs()
      // (a parser may throw before it returns anything: caught all the same)
      await (async () => parse(input))().catch(() => {})
      const second = cpuMs() - again
      if (second > slowMs) {
        throw new Error(`took ${Math.round(ms)} ms of CPU, and ${Math.round(second)} ms again`)
      }
    }
    if (outcome === 'parsed') {
      const wrong = valid(value, input)
      if (wrong !== null) throw new Error(`parsed, but ${wrong}`)
      parsed++
    } else {
      refusedCount++
      if (refusals.length < 200) refusals.push(input)
    }
  })
  const details = await fc.check(property, { seed: SEED, numRuns })
  if (details.failed) {
    const input = JSON.stringify(details.counterexample?.[0])
    const shown =
      input === undefined
        ? String(details.counterexample?.[0])
        : input.length > 600
          ? `${input.slice(0, 600)}… (${input.length} characters)`
          : input
    t.fail(
      safeLabel(
        `${name}: ${/** @type {Error | undefined} */ (details.errorInstance)?.message?.slice(0, 600)}; input ` +
          `(seed ${SEED}, ${details.numRuns} runs, shrunk ${details.numShrinks} times): ${shown}`
      )
    )
  } else {
    t.pass(safeLabel(`${name}: ${cases} cases (${parsed} parsed, ${refusedCount} refused)`))
  }
  return { cases, parsed, refused: refusedCount, refusals }
}

// The samples that go through the CLI spawn a process each (a third of a
// second of CPU apiece, more than the fuzzing around them): they belong to
// the integration loop, which runs the unit fuzz files again with
// PGLOADGEN_FUZZ_CLI=1 (test/helpers/fuzz-cli.js, from two integration files). The unit loop
// names them in a comment, with where they run: not as skipped tests, since
// nothing of them goes unrun in npm test.
export const CLI_SAMPLES = process.env.PGLOADGEN_FUZZ_CLI === '1'
// The share of each fuzz run that the integration loop repeats to draw its
// CLI samples from: the unit loop has checked every case already, and the
// first cases of the same seed give the same kinds of refusals.
const CLI_SAMPLE_SHARE = 0.25

/**
 * A subtest that runs refused inputs through the CLI: run when CLI_SAMPLES,
 * otherwise left to the integration loop (test/helpers/fuzz-cli.js), with a comment.
 * @param {import('tap').Test} t
 * @param {string} name
 * @param {(t: import('tap').Test) => Promise<void>} body
 */
export function cliSampleTest(t, name, body) {
  if (!CLI_SAMPLES) {
    t.comment(`${name}: spawns the CLI, run by the integration loop (test/integration/fuzz-cli*.test.js)`)
    return Promise.resolve()
  }
  return t.test(name, body)
}

/**
 * Runs the CLI on a bad input and checks that it is refused as docs/running.md
 * says (Exit codes): exit 2, nothing on stdout, one line on stderr starting
 * "pgloadgen:", no stack trace, and nothing created (the data directory of
 * the embedded server and the events file stay absent).
 * @param {import('tap').Test} t
 * @param {(scratch: { dataDir: string, events: string }) => string[]} argsOf
 * @param {string} label
 */
export async function cliRefuses(t, argsOf, label) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-fuzz-'))
  try {
    const scratch = { dataDir: path.join(dir, 'pgdata'), events: path.join(dir, 'events.ndjson') }
    const args = argsOf(scratch)
    const result = await runCli(args, { env: { PGLOADGEN_CONTROL_TOKEN: '' } })
    const errorLines = lines(result.stderr)
    const shown = `${label} ${JSON.stringify(args.filter(arg => !arg.startsWith(dir))).slice(0, 160)}`
    const ok =
      result.code === 2 &&
      result.stdout === '' &&
      errorLines.length === 1 &&
      /^pgloadgen: \S/.test(errorLines[0]) &&
      !/^ {4}at /m.test(result.stderr) &&
      result.stderr.split('\n').length === 2 &&
      !existsSync(scratch.dataDir) &&
      !existsSync(scratch.events)
    t.ok(ok, safeLabel(`CLI refuses ${shown}: exit ${result.code}, ${JSON.stringify(result.stderr.slice(0, 200))}`))
    return result
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * A few of the refused inputs, spread over the list, for the CLI sample:
 * strings a command line can carry (no NUL), shortest first among equals.
 * @param {unknown[]} refusals
 * @param {number} n
 * @param {(input: any) => boolean} [usable]
 */
export function sample(refusals, n, usable = () => true) {
  const seen = new Set()
  const ok = refusals.filter(input => {
    if (
      typeof input !== 'string' ||
      input.includes('\u0000') ||
      input.length > 2000 ||
      /[\uD800-\uDFFF]/.test(input) ||
      !usable(input)
    ) {
      return false
    }
    // one of each shape: a long run of one letter once
    const shape = input.replace(/(.)\1{3,}/g, '$1…')
    if (seen.has(shape)) return false
    seen.add(shape)
    return true
  })
  const step = Math.max(1, Math.floor(ok.length / n))
  return ok.filter((_, i) => i % step === 0).slice(0, n)
}

/**
 * A text made safe as a TAP test name: one line, no "#" (which TAP reads as
 * the start of a directive such as # SKIP).
 * @param {string} text
 */
export function safeLabel(text) {
  return printable(text, 2000).replaceAll('#', '＃')
}

/**
 * fuzz() in a subtest of its own (tap waits for it), resolving to its counts.
 * @template I
 * @param {import('tap').Test} t
 * @param {string} name
 * @param {fc.Arbitrary<I>} arbitrary
 * @param {(input: I) => unknown} parse
 * @param {Parameters<typeof fuzz>[4]} [options]
 * @returns {Promise<{ cases: number, parsed: number, refused: number, refusals: unknown[] }>}
 */
export async function fuzzTest(t, name, arbitrary, parse, options) {
  /** @type {{ cases: number, parsed: number, refused: number, refusals: unknown[] }} */
  let result = { cases: 0, parsed: 0, refused: 0, refusals: [] }
  await t.test(safeLabel(name), async t => {
    result = await fuzz(t, name, arbitrary, parse, options)
  })
  return result
}
