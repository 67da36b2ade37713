// The known-answer suite's bloat part: on each embedded major, tables with a
// dead fraction fixed by construction (benchmarks/known-answers/bloat/), the
// exporter's bloat figures for the heap and its two B-trees against
// pgstattuple and pgstatindex. One row per major and shape; met when every
// case's figure is within 5 points of the truth, or absent where it must be
// (a role that cannot read pg_stats).
//
//   node benchmarks/known-answers/bloat.js [--quick] [--seed N] [--majors 13,14] [--shapes a,b] [--cases N]
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { createLogger } from '../../lib/log.js'
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'
import { withControlClient } from '../../lib/pg/control-client.js'
import { SHAPES, QUICK_SHAPES, drawSizes } from './bloat/shapes.js'
import { measureCase } from './bloat/measure.js'
import { summarise, TARGET_POINTS } from './bloat/summary.js'

/** @typedef {import('./contract.js').KnownAnswerContext} KnownAnswerContext */
/** @typedef {import('./contract.js').KnownAnswerRow} KnownAnswerRow */

export const MAJORS = [13, 14, 15, 16, 17, 18]
export const QUICK_MAJOR = 18
const CASES = { quick: 1, full: 3 }
// The quick subset's tables are a third of the size (8 000 to 16 000 rows).
const QUICK_SCALE = 1 / 3
export { TARGET_POINTS }

/**
 * An embedded server of `major` in a temporary directory, with pgstattuple
 * and the role that cannot read the cases' tables; fn runs against it, then
 * the server stops and its directory goes.
 * @template T
 * @param {number} major
 * @param {(url: string) => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function withServer(major, fn) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `pgloadgen-bloat-${major}-`))
  const server = new EmbeddedServer({
    dataDir,
    profileFile: resolveProfile('default'),
    log: createLogger({ level: 'warn' }),
    major
  })
  try {
    const url = await server.start()
    await withControlClient({ connectionString: url }, async client => {
      await client.query('CREATE EXTENSION IF NOT EXISTS pgstattuple')
      await client.query('CREATE ROLE bloat_blind NOLOGIN')
    })
    return await fn(url)
  } finally {
    await server.shutdown().catch(() => {})
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** @param {number | null} ratio */
const pct = ratio => (ratio === null ? 'none' : (ratio * 100).toFixed(1))

/** A case's figures against the truth, in percent. @param {import('./bloat/measure.js').CaseResult} r */
const detail = r =>
  [r.heap, ...r.btrees].map((f, i) => `${['heap', 'pkey', 'k'][i]} ${pct(f.estimate)}/${pct(f.truth)}`).join(', ')

/**
 * Runs the cases of the given majors and shapes.
 * @param {{
 *   seed: number, majors: number[], shapes: string[], cases: number, scale?: number, say: (line: string) => void
 * }} options   scale: of the tables' rows
 */
export async function runCases({ seed, majors, shapes, cases, scale = 1, say }) {
  /** @type {KnownAnswerRow[]} */
  const rows = []
  for (const major of majors) {
    await withServer(major, async url => {
      for (const [s, shape] of SHAPES.entries()) {
        if (!shapes.includes(shape.name)) continue
        const results = []
        for (let c = 0; c < cases; c++) {
          const drawn = drawSizes(mulberry32(seed + 1000 * s + c), seed + c)
          const sizes = { ...drawn, rows: Math.round(drawn.rows * scale) }
          const result = await measureCase(url, `bloat_case_${s}_${c}`, shape, sizes)
          say(`bloat: PG ${major} ${shape.name} case ${c + 1}: ${detail(result)}`)
          results.push(result)
        }
        const row = summarise(major, shape, results)
        say(`bloat: PG ${major} ${shape.name}: ${row.result}; truth ${row.truth}; error ${row.error}`)
        rows.push(row)
      }
    })
  }
  return rows
}

/** @param {KnownAnswerContext} context @returns {Promise<KnownAnswerRow[]>} */
export async function run({ seed, quick, say }) {
  return runCases({
    seed,
    majors: quick ? [QUICK_MAJOR] : MAJORS,
    shapes: quick ? QUICK_SHAPES : SHAPES.map(s => s.name),
    cases: quick ? CASES.quick : CASES.full,
    scale: quick ? QUICK_SCALE : 1,
    say
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      seed: { type: 'string' },
      majors: { type: 'string' },
      shapes: { type: 'string' },
      cases: { type: 'string' }
    }
  })
  const seed = Number(values.seed ?? 34)
  const majors = values.majors ? values.majors.split(',').map(Number) : values.quick ? [QUICK_MAJOR] : MAJORS
  const rows = await runCases({
    seed,
    majors,
    shapes: values.shapes ? values.shapes.split(',') : values.quick ? QUICK_SHAPES : SHAPES.map(s => s.name),
    cases: Number(values.cases ?? (values.quick ? CASES.quick : CASES.full)),
    scale: values.quick ? QUICK_SCALE : 1,
    say: line => process.stderr.write(`${line}\n`)
  })
  for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`)
}
