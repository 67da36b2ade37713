import path from 'node:path'
import { PGLOADGEN_VERSION } from '../recorder/run-info.js'
import { readEntries } from './read-entries.js'
import { entryFigures, figureList, FIGURES_METHOD } from './figures.js'
import { compareFigures, VERDICT_METHOD } from './verdicts.js'

// `pgloadgen compare A B [C …]`: recorded runs and experiment variants side
// by side, each against the first (the baseline). The comparison object is
// what --json prints, and what the terminal table and the HTML page show:
// they never compute a figure of their own.

/**
 * @typedef {object} ComparedEntry
 * @property {string} letter
 * @property {string} name
 * @property {'run' | 'variant'} kind
 * @property {string} path          absolute: the run's directory, or the variant's
 * @property {string | null} experiment
 * @property {string | null} variant
 * @property {string} workload
 * @property {number} repetitions
 * @property {number[]} elapsed_s   each repetition's seconds of load
 * @property {Record<string, number | null>} figures
 * @property {Record<string, (number | null)[]>} repetition_figures
 * @property {string | null} autovacuum_source
 * @property {Array<import('../analysis/explain.js').Change & { repetition: number }> | null} changes
 *   what changed within each run (summary.json's changes), null when none of its summaries has them
 */

/**
 * @typedef {object} Comparison
 * @property {string} pgloadgen_version
 * @property {string} baseline      the baseline's letter (A)
 * @property {ComparedEntry[]} entries
 * @property {import('./figures.js').Figure[]} figures   in the order shown
 * @property {Array<{ entry: string, against: string, figures: Record<string,
 *     import('./verdicts.js').FigureComparison> }>} comparisons
 * @property {boolean} forced       --force: entries of different workloads
 * @property {Record<string, string>} method
 */

/**
 * Reads the entries and compares each with the first.
 * @param {string[]} args
 * @param {{ force?: boolean }} [options]
 * @returns {Promise<{ comparison: Comparison, entries: import('./read-entries.js').Entry[] }>}
 */
export async function compareEntries(args, { force = false } = {}) {
  const entries = await readEntries(args, { force })
  return { comparison: comparisonOf(entries, force), entries }
}

/**
 * @param {import('./read-entries.js').Entry[]} entries   checked, the baseline first
 * @param {boolean} force
 * @returns {Comparison}
 */
export function comparisonOf(entries, force) {
  const figures = entries.map(entryFigures)
  const list = figureList(figures)
  const [baseline, ...others] = entries
  return {
    pgloadgen_version: PGLOADGEN_VERSION,
    baseline: baseline.letter,
    entries: entries.map((entry, i) => ({
      letter: entry.letter,
      name: entry.name,
      kind: entry.source.kind,
      path: path.resolve(entry.source.dir),
      experiment: entry.source.experiment === null ? null : path.resolve(entry.source.experiment),
      variant: entry.source.variant,
      workload: entry.workload,
      repetitions: entry.runs.length,
      elapsed_s: entry.summaries.map(s => Number(s.elapsed_s) || 0),
      figures: Object.fromEntries(list.map(f => [f.key, figures[i].values[f.key] ?? null])),
      repetition_figures: Object.fromEntries(
        list.map(f => [f.key, figures[i].repetitions[f.key] ?? entry.runs.map(() => null)])
      ),
      autovacuum_source: [...new Set(figures[i].autovacuum_sources.filter(s => s !== null))].join(', ') || null,
      changes: entry.summaries.some(s => Array.isArray(s.changes))
        ? entry.summaries.flatMap((s, r) =>
            Array.isArray(s.changes)
              ? s.changes.map((/** @type {import('../analysis/explain.js').Change} */ c) => ({
                  repetition: r + 1,
                  ...c
                }))
              : []
          )
        : null
    })),
    figures: list,
    comparisons: others.map((entry, j) => ({
      entry: entry.letter,
      against: baseline.letter,
      figures: compareFigures(list, figures[0], figures[j + 1])
    })),
    forced: force && new Set(entries.map(e => e.workload)).size > 1,
    method: { ...FIGURES_METHOD, ...VERDICT_METHOD }
  }
}
