import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { cruise } from 'dependency-cruiser'
import config, { LAYERS } from '../../.dependency-cruiser.mjs'

// The project's dependency-cruiser configuration run over a tree, and the
// JSDoc types it leaves out: dependency-cruiser reads `import('…')` in
// @param, @type and @returns, not in the @property lines of a
// `@typedef {object}`, so those are found here and held to the same order.

/**
 * The violations dependency-cruiser finds in root/lib (and root/bin when it exists).
 * @param {string} root
 * @returns {Promise<Array<{ rule: string, from: string, to: string }>>}
 */
export async function layerViolations(root) {
  const dirs = ['lib', 'bin'].filter(d => listed(path.join(root, d)))
  const options = { ...config.options, ruleSet: { forbidden: config.forbidden }, validate: true, baseDir: root }
  const result = await cruise(dirs, options)
  const output = /** @type {import('dependency-cruiser').ICruiseResult} */ (result.output)
  return output.summary.violations.map(v => ({ rule: v.rule.name, from: v.from, to: v.to }))
}

/**
 * JSDoc `import('…')` types in root/lib whose folder sits in a higher layer.
 * @param {string} root
 * @returns {Array<{ from: string, to: string }>}
 */
export function climbingTypes(root) {
  const layerOf = new Map(LAYERS.flatMap((folders, i) => folders.map(f => [f, i])))
  const found = []
  for (const file of jsFiles(path.join(root, 'lib'))) {
    const from = path.relative(root, file)
    for (const match of readFileSync(file, 'utf8').matchAll(/import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)) {
      const to = path.relative(root, path.resolve(path.dirname(file), match[1]))
      const [fromLayer, toLayer] = [from, to].map(p => layerOf.get(p.split(path.sep)[1]))
      if (fromLayer !== undefined && toLayer !== undefined && toLayer > fromLayer) found.push({ from, to })
    }
  }
  return found
}

/** @param {string} dir */
function listed(dir) {
  try {
    return readdirSync(dir).length > 0
  } catch {
    return false
  }
}

/**
 * @param {string} dir
 * @returns {string[]}
 */
function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return jsFiles(full)
    return entry.name.endsWith('.js') ? [full] : []
  })
}
