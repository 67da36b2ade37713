// The tables of codes of lib/error-codes.js against the code that throws them,
// read statically: every code is thrown somewhere in lib/, none by more than
// MAX_SITES throw sites (a code so common says nothing of what went wrong),
// and docs/errors.md has a row for each.
import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ERROR_CLASSES, ERROR_CODES, WARNING_CODES } from '../../lib/errors.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAX_SITES = 40

/** The code each class gives when its call names none. */
const CLASS_CODES = new Map(ERROR_CLASSES.map(Kind => [Kind.name, new Kind('x').code]))
const NEW_ERROR = new RegExp(`new (${[...CLASS_CODES.keys()].join('|')})\\(`, 'g')

/**
 * Every .js file under dir.
 * @param {string} dir
 * @returns {Promise<string[]>}
 */
async function sources(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true })
  return entries.filter(e => e.isFile() && e.name.endsWith('.js')).map(e => path.join(e.parentPath ?? e.path, e.name))
}

/**
 * The index of the parenthesis that closes the one at open, strings and
 * templates skipped.
 * @param {string} text
 * @param {number} open
 */
function closing(text, open) {
  /** @type {string[]} */
  const stack = []
  for (let i = open; i < text.length; i++) {
    const c = text[i]
    const top = stack.at(-1)
    if (top === '`' || top === "'" || top === '"') {
      if (c === '\\') i++
      else if (c === top) stack.pop()
      else if (top === '`' && c === '$' && text[i + 1] === '{') (stack.push('{'), i++)
    } else if ('`\'"([{'.includes(c)) stack.push(c)
    else if (')]}'.includes(c)) {
      stack.pop()
      if (stack.length === 0) return i
    }
  }
  return text.length
}

/**
 * The throw sites of each code in lib/, by code: a `new InputError(…)` of
 * any class of lib/errors.js counts for the code its options name, or else
 * the class's own; any other code named in quotes (a warning's, the
 * fallback of codedServerError, an entry of a table mapping another's errors)
 * counts once where it is named.
 */
async function throwSites() {
  /** @type {Map<string, string[]>} */
  const sites = new Map()
  const add = (/** @type {string} */ code, /** @type {string} */ where) =>
    sites.set(code, [...(sites.get(code) ?? []), where])
  for (const file of await sources(path.join(ROOT, 'lib'))) {
    if (['errors.js', 'error-codes.js'].includes(path.relative(path.join(ROOT, 'lib'), file))) continue
    const text = await readFile(file, 'utf8')
    const where = path.relative(ROOT, file)
    /** @type {Array<[number, number]>} */
    const calls = []
    for (const match of text.matchAll(NEW_ERROR)) {
      const open = /** @type {number} */ (match.index) + match[0].length - 1
      calls.push([open, closing(text, open)])
      const named = /code: '(PGLG_[A-Z_]+)'/.exec(text.slice(...calls[calls.length - 1]))
      add(named ? named[1] : /** @type {string} */ (CLASS_CODES.get(match[1])), where)
    }
    for (const match of text.matchAll(/'(PGLG_[A-Z_]+)'/g)) {
      const at = /** @type {number} */ (match.index)
      if (!calls.some(([open, close]) => open < at && at < close)) add(match[1], where)
    }
  }
  return sites
}

t.test('every code is thrown, none by more than 40 sites, and only codes of the table', async t => {
  const sites = await throwSites()
  const known = new Set([...Object.keys(ERROR_CODES), ...Object.keys(WARNING_CODES)])
  for (const code of known) {
    const count = sites.get(code)?.length ?? 0
    t.ok(count > 0, `${code} is used`)
    t.ok(count <= MAX_SITES, `${code}: ${count} throw sites, at most ${MAX_SITES}`)
  }
  for (const code of sites.keys()) t.ok(known.has(code), `${code} (${sites.get(code)?.[0]}) is in the table`)
})

t.test('docs/errors.md has a row for every code', async t => {
  const page = await readFile(path.join(ROOT, 'docs', 'errors.md'), 'utf8')
  for (const code of [...Object.keys(ERROR_CODES), ...Object.keys(WARNING_CODES)]) {
    t.match(page, new RegExp(`^\\| \`${code}\` \\|`, 'm'), `${code} has a row`)
  }
})
