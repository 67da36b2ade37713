// The script parser against the real pgbench (PostgreSQL 15's): the same
// scripts are refused, with the same words. pgbench reads its scripts before
// it connects, so it is pointed at a server that does not exist: a script it
// accepts makes it fail to connect instead.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { ScriptLoadError } from '../../lib/pgbench/errors.js'
import { parseScript } from '../../lib/pgbench/scripts.js'
import { requireTool } from '../helpers/tools.js'

requireTool('pgbench', 'postgresql-15')
const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-pgbench-parse-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
let files = 0

/**
 * pgbench's verdict on a script: null when it accepts it, else its error
 * without "pgbench: error: FILE:LINE: " (conditional errors keep only their
 * message).
 * @param {Buffer} content
 * @returns {Promise<string | null>}
 */
async function pgbenchVerdict(content) {
  const file = path.join(dir, `s${files++}.sql`)
  await writeFile(file, content)
  const stderr = await new Promise(resolve => {
    execFile(
      'pgbench',
      ['-n', '-t', '1', '-f', file, '-h', path.join(dir, 'no-server'), '-p', '1'],
      (_err, _stdout, err) => resolve(err)
    )
  })
  const first = String(stderr).split('\n')[0]
  if (/could not create connection|connection to server|failed:/.test(stderr)) return null
  return first
    .replace(/^pgbench: error: /, '')
    .replace(`${file}:`, '')
    .replace(/^\d+: /, '')
    .replace(/^condition error in script "[^"]*" command \d+: /, '')
}

/**
 * Ours, the same way.
 * @param {Buffer} content
 * @returns {string | null}
 */
function ourVerdict(content) {
  try {
    parseScript(content.toString('utf8'), { file: 'x.sql' })
    return null
  } catch (err) {
    if (!(err instanceof ScriptLoadError)) throw err
    return err.message
      .replace(/^x\.sql:\d+: /, '')
      .replace(/ at column \d+/, '')
      .replace('empty command list for script "x.sql"', 'empty command list for script')
  }
}

/** @param {string | null} verdict */
const normalize = verdict =>
  verdict?.replace(/empty command list for script ".*"/, 'empty command list for script') ?? null

t.test('bad scripts: refused by both, in the same words', async t => {
  const scripts = [
    'SELECT 1;\n\\foo bar\n',
    '\\\\x\n',
    '\\set\n',
    '\\set x\n',
    '\\set x 1 +\n',
    'SELECT 1;\n\\set x nosuch(1)\n',
    '\\set x 1 ; \n',
    '\\set y 99999999999999999999\n',
    '\\if\n',
    '\\if 1\n\\elif\n\\endif\n',
    '\\sleep\n',
    '\\sleep 1 s extra\n',
    '\\sleep 1.5\n',
    '\\sleep x\n',
    '\\sleep 1ms s\n',
    '\\sleep 1 min\n',
    '\\sleep 3h\n',
    '\\if 1\n\\else 2\n\\endif\n',
    '\\if 1\n\\endif 2\n',
    '\\startpipeline now\n',
    '\\endpipeline now\n',
    'SELECT 1 \\gset a b\n',
    'SELECT 1 \\aset a b\n',
    '\\gset\n',
    '-- comment\n\\aset\n',
    '\\set x 1\n\\gset\n',
    'SELECT 1 AS a \\gset\n\\gset\n',
    '\\elif 1\n',
    'SELECT 1;\n\\else\n',
    '\\endif\n',
    '\\if 1\n\\else\n\\else\n\\endif\n',
    '\\if 1\n\\else\n\\elif 2\n\\endif\n',
    '\\if 1\nSELECT 1;\n\\if 2\n\\endif\n',
    '',
    '\n-- only comments\n   \n',
    '\\\n',
    '\\set x 1 \\\n+ (2\n'
  ]
  for (const text of scripts) {
    const content = Buffer.from(text)
    const theirs = await pgbenchVerdict(content)
    t.not(theirs, null, `pgbench refuses ${JSON.stringify(text)}`)
    t.equal(ourVerdict(content), normalize(theirs), JSON.stringify(text))
  }
})

t.test('random scripts: accepted or refused alike', async t => {
  let state = Number(process.env.PGLOADGEN_FUZZ_SEED ?? Date.now() % 2 ** 31)
  t.comment(`seed ${state}`)
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
  // no \shell or \setshell (pgloadgen refuses them), no \syncpipeline
  // (pgbench 15 does not know it), no NUL (it ends pgbench's text)
  const fragments = [
    'SELECT ',
    ' ',
    '\n',
    '\n',
    ';',
    '\\',
    '\\;',
    ':',
    '::',
    ':a',
    "'",
    '"',
    '$$',
    '$t$',
    '(',
    ')',
    '--',
    '/*',
    '*/',
    "E'\\'",
    'BEGIN',
    'END',
    'CREATE ',
    'FUNCTION ',
    'CASE ',
    '1',
    'x',
    '\\set x ',
    ' 1 + ',
    ' :x * 2',
    ' random(1, 10)',
    ' (',
    ' )',
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
    's',
    '\\startpipeline',
    '\\endpipeline',
    '\\unknown',
    '\\\n',
    '\r\n',
    'é'
  ]
  let agreed = 0
  for (let batch = 0; batch < 40; batch++) {
    // three pgbench processes at a time
    const texts = Array.from({ length: 3 }, () => {
      let text = ''
      const length = Math.floor(random() * 14)
      for (let j = 0; j < length; j++) text += fragments[Math.floor(random() * fragments.length)]
      return text
    })
    const verdicts = await Promise.all(texts.map(text => pgbenchVerdict(Buffer.from(text))))
    for (let k = 0; k < texts.length; k++) {
      const theirs = normalize(verdicts[k])
      const ours = ourVerdict(Buffer.from(texts[k]))
      if (ours !== theirs) {
        t.fail(`${JSON.stringify(texts[k])}: pgbench ${JSON.stringify(theirs)}, pgloadgen ${JSON.stringify(ours)}`)
        return
      }
      agreed++
    }
  }
  t.equal(agreed, 120)
})
