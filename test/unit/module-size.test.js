// No module of lib/ or bin/ is over 400 lines: a module that grows past it
// holds more than one job, and is split (docs/architecture.md). Counted as
// `wc -l` counts, after Prettier's layout, so the limit cannot be met by
// crowding lines.
import t from 'tap'
import { readFile, readdir } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAX_LINES = 400

/**
 * @param {string} dir
 * @returns {Promise<string[]>} the .js files under dir, relative to the root
 */
async function modules(dir) {
  const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
  return entries
    .filter(entry => entry.isFile() && entry.name.endsWith('.js'))
    .map(entry => path.relative(ROOT, path.join(entry.parentPath ?? entry.path, entry.name)))
    .sort()
}

t.test(`no module of lib/ or bin/ is over ${MAX_LINES} lines`, async t => {
  const files = [...(await modules('lib')), ...(await modules('bin'))]
  t.ok(files.length > 100, `${files.length} modules read`)
  const over = []
  for (const file of files) {
    const text = await readFile(path.join(ROOT, file), 'utf8')
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
    if (lines > MAX_LINES) over.push(`${file}: ${lines}`)
  }
  t.same(over, [], 'none over the limit')
})
