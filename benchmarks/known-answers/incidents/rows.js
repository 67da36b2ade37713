// The incidents' outcomes as rows of the known-answer table: one per kind,
// the steady runs, and all found incidents together against the target.

// the first cause named is the true one in at least this share of found incidents
export const FIRST_CAUSE_TARGET = 0.9

/**
 * @param {string} part
 * @param {import('./kinds.js').IncidentKind[]} kinds
 * @param {import('./case.js').CaseOutcome[]} outcomes
 * @returns {import('../contract.js').KnownAnswerRow[]}
 */
export function incidentRows(part, kinds, outcomes) {
  /** @type {import('../contract.js').KnownAnswerRow[]} */
  const rows = []
  for (const kind of kinds) {
    const mine = outcomes.filter(o => o.kind === kind.name)
    if (mine.length === 0) continue
    const found = mine.filter(o => o.found)
    const right = found.filter(o => o.right)
    const wrong = [...new Set(found.filter(o => !o.right).map(o => o.firstKind))]
    rows.push({
      part,
      scenario: kind.what,
      cases: mine.length,
      result:
        `found ${found.length}/${mine.length}` +
        (found.length > 0
          ? `, median ${median(found.map(o => Math.abs(/** @type {number} */ (o.delayS))))} s off, ` +
            `first cause right ${right.length}/${found.length}${wrong.length ? ` (else ${wrong.join(', ')})` : ''}`
          : ''),
      truth: `${kind.truth.join(' or ')} at a seeded moment`,
      error: found.length > 0 ? `${pct(1 - right.length / found.length)} wrong` : 'nothing found',
      target: `≥ ${pct(FIRST_CAUSE_TARGET)} first cause right`,
      met: found.length > 0 && right.length / found.length >= FIRST_CAUSE_TARGET
    })
  }
  const steady = outcomes.filter(o => o.kind === 'steady')
  if (steady.length > 0) {
    const changed = steady.filter(o => o.changes > 0)
    const guessed = changed.filter(o => o.firstKind !== 'none').map(o => o.firstKind)
    rows.push({
      part,
      scenario: 'steady runs, nothing injected',
      cases: steady.length,
      result:
        `changes in ${changed.length}/${steady.length}` +
        (guessed.length ? `, causes named: ${guessed.join(', ')}` : ''),
      truth: 'no change',
      error: `${pct(changed.length / steady.length)} of runs`,
      target: '≤ 2 % of runs report a change',
      met: changed.length / steady.length <= 0.02
    })
  }
  const incidents = outcomes.filter(o => o.kind !== 'steady')
  const found = incidents.filter(o => o.found)
  const right = found.filter(o => o.right)
  rows.push({
    part,
    scenario: 'all incidents',
    cases: incidents.length,
    result: `found ${found.length}/${incidents.length}, first cause right ${right.length}/${found.length}`,
    truth: 'the injected cause',
    error: found.length > 0 ? `${pct(1 - right.length / found.length)} wrong` : 'nothing found',
    target: `≥ ${pct(FIRST_CAUSE_TARGET)} first cause right`,
    met: found.length > 0 && right.length / found.length >= FIRST_CAUSE_TARGET
  })
  return rows
}

/** @param {number[]} values */
function median(values) {
  const v = [...values].sort((a, b) => a - b)
  const mid = v.length >> 1
  return v.length % 2 ? v[mid] : Math.round(((v[mid - 1] + v[mid]) / 2) * 10) / 10
}

/** @param {number} share */
function pct(share) {
  return `${Math.round(share * 100)} %`
}
