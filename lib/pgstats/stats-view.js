// The collector's snapshot as the schedule's conditions read it
// (lib/sidecar/conditions.js).

/**
 * @typedef {object} StatsView   what conditions read from the collector's snapshot
 * @property {(table: string) => { live: number, dead: number, bytes: number, xidAge: number } | null} table
 * @property {() => number | null} databaseXidAge
 */

/**
 * @param {import('./snapshot.js').StatsSnapshot | null} snapshot
 * @returns {StatsView | null}
 */
export function statsView(snapshot) {
  if (!snapshot) return null
  return {
    table(name) {
      const table = findTable(snapshot.tables, name)
      if (!table || table.liveTuples === null || table.deadTuples === null) return null
      return {
        live: table.liveTuples,
        dead: table.deadTuples,
        bytes: table.totalBytes ?? NaN,
        xidAge: table.xidAge ?? NaN
      }
    },
    databaseXidAge() {
      return snapshot.databases.find(db => db.datname === snapshot.datname)?.xidAge ?? null
    }
  }
}

/**
 * "schema.table" exactly, or "table" in any schema (public first).
 * @param {import('./snapshot.js').TableSnapshot[]} tables
 * @param {string} name
 */
export function findTable(tables, name) {
  const dot = name.indexOf('.')
  if (dot >= 0) {
    return tables.find(t => t.schemaname === name.slice(0, dot) && t.relname === name.slice(dot + 1)) ?? null
  }
  const matches = tables.filter(t => t.relname === name)
  return matches.find(t => t.schemaname === 'public') ?? matches[0] ?? null
}
