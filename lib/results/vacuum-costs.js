// The vacuums a run recorded with what each cost (lib/pgstats/vacuum-cost.js),
// as the report and compare read them.

/** @typedef {import('../pgstats/vacuum-cost.js').VacuumCost} VacuumCost */
/**
 * @typedef {{ ts: string | null, action: string, table: string | null, duration_s: number | null,
 *     cost: VacuumCost }} VacuumEntry
 */

/**
 * The vacuums of a run with their cost: from summary.json when it lists
 * them, else from the events.
 * @param {import('./read.js').RunData} run
 * @returns {VacuumEntry[]}
 */
export function runVacuumCosts(run) {
  if (Array.isArray(run.summary?.vacuums)) return run.summary.vacuums.filter((/** @type {any} */ v) => v && v.cost)
  return run.events
    .filter(
      e =>
        (e.kind === 'end' || e.kind === 'point') &&
        /^(auto)?vacuum/.test(e.action) &&
        e.detail &&
        typeof e.detail.cost === 'object'
    )
    .map(e => ({
      ts: e.ts,
      action: e.action,
      table: e.table ?? null,
      duration_s: e.duration_s ?? null,
      cost: /** @type {VacuumCost} */ (e.detail?.cost)
    }))
}

/**
 * The run's action's cost: its first vacuum of the sidecar, else its first
 * autovacuum with figures of the table the statistics watched (an
 * anti-wraparound round vacuums a workload's small tables too, and often
 * first), else its first autovacuum with figures.
 * @param {import('./read.js').RunData} run
 * @returns {VacuumEntry | null}
 */
export function actionVacuumCost(run) {
  const all = runVacuumCosts(run)
  const watched = run.samples.find(s => s.pg?.table)?.pg?.table
  const ofWatched = watched
    ? all.find(v => v.table !== null && String(v.table).split('.').pop() === String(watched).split('.').pop())
    : undefined
  return all.find(v => /^vacuum/.test(v.action)) ?? ofWatched ?? all[0] ?? null
}
