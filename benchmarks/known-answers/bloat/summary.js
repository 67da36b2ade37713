// The row of one major and shape: the exporter's figures against the truth,
// the error in points (hundredths of the relation), the worst case counted.
// The estimate is the figure shown by default; where it is more than
// TARGET_POINTS off, the row is met only if the exact figure the exporter
// shows on demand (--pgstattuple) is within them. The heap's figure of
// --pgstattuple-approx (pgstattuple_approx) is shown beside, when measured.

/** @typedef {import('../contract.js').KnownAnswerRow} KnownAnswerRow */
/** @typedef {import('./measure.js').CaseResult} CaseResult */
/** @typedef {import('./measure.js').Figures} Figures */

/** The bound on a figure's error, in points. */
export const TARGET_POINTS = 5

/** @param {number[]} values */
const mean = values => values.reduce((a, b) => a + b, 0) / values.length
/** @param {number} ratio */
const pct = ratio => `${(ratio * 100).toFixed(1)} %`

/**
 * The worst error in points of one kind of figure, null when one is absent.
 * @param {Figures[]} figures @param {'estimate' | 'onDemand' | 'approx'} kind
 */
function worst(figures, kind) {
  let out = 0
  for (const f of figures) {
    const value = f[kind]
    if (value === null || value === undefined) return null
    const error = (value - f.truth) * 100
    if (Math.abs(error) > Math.abs(out)) out = error
  }
  return out
}

/** @param {number | null} error */
const points = error => (error === null ? 'none shown' : `${error >= 0 ? '+' : ''}${error.toFixed(1)}`)

/** @param {number | null} error */
const within = error => error !== null && Math.abs(error) <= TARGET_POINTS

/**
 * @param {Figures[]} figures
 * @param {string} exact   the on-demand figure's source
 */
function side(figures, exact) {
  const estimate = worst(figures, 'estimate')
  const onDemand = worst(figures, 'onDemand')
  const approx = worst(figures, 'approx')
  const present = figures.filter(f => f.estimate !== null)
  const shownExact = within(estimate) ? [] : [`${exact} ${points(onDemand)}`]
  const shownApprox = approx === null ? [] : [`pgstattuple_approx ${points(approx)}`]
  const beside = [...shownExact, ...shownApprox]
  return {
    shown: present.length ? pct(mean(present.map(f => Number(f.estimate)))) : 'none',
    truth: pct(mean(figures.map(f => f.truth))),
    error: beside.length ? `${points(estimate)} (${beside.join(', ')})` : points(estimate),
    met: within(estimate) || within(onDemand),
    absent: figures.length - present.length
  }
}

/**
 * @param {number} major
 * @param {import('./shapes.js').Shape} shape
 * @param {CaseResult[]} results
 * @returns {KnownAnswerRow}
 */
export function summarise(major, shape, results) {
  const heap = side(
    results.map(r => r.heap),
    'pgstattuple'
  )
  const btree = side(
    results.flatMap(r => r.btrees),
    'pgstatindex'
  )
  const blind = Boolean(shape.role)
  return {
    part: 'bloat',
    scenario: `PG ${major}, ${shape.name}: ${shape.what}`,
    cases: results.length,
    result: `estimate: heap ${heap.shown}, B-tree ${btree.shown} (mean)`,
    truth: `pgstattuple ${heap.truth}, pgstatindex ${btree.truth} (mean)`,
    error: blind ? 'no figure shown' : `worst heap ${heap.error}, B-tree ${btree.error} points`,
    target: blind
      ? 'no figure (it would be a guess)'
      : `≤ ${TARGET_POINTS} points (the estimate, else the exact figure of --pgstattuple)`,
    met: blind ? heap.absent === results.length && btree.absent === 2 * results.length : heap.met && btree.met
  }
}
