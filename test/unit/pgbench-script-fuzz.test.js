// Arbitrary text given to the script parser: it returns a well-formed script
// or throws a one-line ScriptLoadError, nothing else. A seeded random loop
// (the seed is printed, so a failure can be replayed with PGLOADGEN_FUZZ_SEED).
import t from 'tap'
import { ScriptLoadError } from '../../lib/pgbench/errors.js'
import { parseScript } from '../../lib/pgbench/scripts.js'
import { ELIF, ELSE, ENDIF, IF, SQL } from '../../lib/pgbench/script/commands.js'

const seed = Number(process.env.PGLOADGEN_FUZZ_SEED ?? Date.now() % 2 ** 31)
t.comment(`seed ${seed}`)

/** mulberry32: a small seeded generator */
function generator(/** @type {number} */ state) {
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let x = Math.imul(state ^ (state >>> 15), 1 | state)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}
const random = generator(seed)
/** @param {number} n */
const below = n => Math.floor(random() * n)

const FRAGMENTS = [
  'SELECT ',
  'UPDATE t SET a = ',
  ' ',
  ' ',
  '\n',
  '\n',
  ';',
  ';',
  '\\',
  '\\;',
  '\\:',
  ':',
  '::',
  ':a',
  ':b1',
  ':é',
  ':{?x}',
  "'",
  '"',
  '$$',
  '$t$',
  '$1',
  '(',
  ')',
  '--',
  '/*',
  '*/',
  "E'",
  "e'\\'",
  'BEGIN',
  'END',
  'CREATE ',
  'FUNCTION ',
  'OR REPLACE ',
  'ATOMIC ',
  'CASE ',
  '1',
  '1e-',
  '.5',
  'x',
  '\\set x ',
  '\\set ',
  ' 1 + ',
  ' :x * 2',
  ' random(1, 10)',
  ' (',
  ' )',
  ' foo(',
  '\\if ',
  '\\elif ',
  '\\else',
  '\\endif',
  '\\gset',
  '\\aset',
  ' p_',
  '\\sleep ',
  ' 10',
  ' ms',
  ':x',
  '\\startpipeline',
  '\\endpipeline',
  '\\syncpipeline',
  '\\shell',
  '\\setshell',
  '\\unknown',
  '\\\n',
  '\r\n',
  '\t',
  'é',
  '\u00a0',
  '\u0000',
  '\uD83D\uDE00',
  '\uD800',
  'CASE WHEN 1 THEN 2 END'
]

/** Some text: mostly fragments of scripts, sometimes any characters. */
function text() {
  let out = ''
  const length = below(40)
  for (let i = 0; i < length; i++) {
    out +=
      random() < 0.85 ? FRAGMENTS[below(FRAGMENTS.length)] : String.fromCharCode(below(random() < 0.8 ? 128 : 0x10000))
  }
  return out
}

/**
 * @param {import('../../lib/pgbench/script/commands.js').Script} script
 * @returns {string | null}  what is wrong, if anything
 */
function malformed(script) {
  const { commands } = script
  if (!Array.isArray(commands) || commands.length === 0) return 'no commands'
  for (let i = 0; i < commands.length; i++) {
    const command = /** @type {any} */ (commands[i])
    if (!Number.isInteger(command.line) || command.line < 1) return `command ${i}: line ${command.line}`
    if (command.kind === SQL) {
      const placeholders = command.statement.text.match(/\$\d+/g)?.length ?? 0
      if (command.pieces.length !== command.variables.length + 1) return `command ${i}: pieces`
      if (placeholders < command.variables.length) return `command ${i}: placeholders`
    }
    if (command.kind === IF || command.kind === ELIF) {
      const next = commands[command.next]
      if (next === undefined || ![ELIF, ELSE, ENDIF].includes(next.kind) || command.next <= i) {
        return `command ${i}: next ${command.next}`
      }
    }
    if (command.kind === IF || command.kind === ELIF || command.kind === ELSE || command.kind === ENDIF) {
      if (commands[command.endif]?.kind !== ENDIF || command.endif < i) return `command ${i}: endif ${command.endif}`
    }
    if ((command.kind === IF || command.kind === ELIF) && typeof command.evaluate !== 'function') {
      return `command ${i}: evaluate`
    }
  }
  return null
}

t.test('parseScript returns a script or throws a one-line ScriptLoadError', async t => {
  let parsed = 0
  let refused = 0
  for (let i = 0; i < 4000; i++) {
    const input = text()
    let script
    try {
      script = parseScript(input, { file: 'fuzz.sql' })
    } catch (err) {
      if (
        !(err instanceof ScriptLoadError) ||
        /\n/.test(err.message) ||
        !/^(fuzz\.sql:\d+: |empty command list for script "fuzz\.sql")/.test(err.message)
      ) {
        t.fail(`${JSON.stringify(input)} threw ${err instanceof Error ? err.stack : String(err)}`)
        return
      }
      refused++
      continue
    }
    const problem = malformed(script)
    if (problem !== null) {
      t.fail(`${JSON.stringify(input)}: ${problem}`)
      return
    }
    parsed++
  }
  t.ok(parsed > 200, `${parsed} parsed`)
  t.ok(refused > 200, `${refused} refused`)
})
