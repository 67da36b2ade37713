import { renderTable } from './table.js'
import { NONE, count, duration } from './figure-format.js'

// The table `pgloadgen forecast` prints: each table's next autovacuum, its
// vacuums an hour and its dead rows when each starts, under the server's
// settings and, with --set, under the ones given, side by side.

/**
 * @param {import('../pgstats/autovacuum-watch.js').TableForecast[]} tables
 * @param {Record<string, number>} changes   the --set settings
 * @returns {string}
 */
export function forecastTable(tables, changes) {
  const sets = Object.entries(changes).map(([name, value]) => `${name}=${value}`)
  const columns = [
    { title: 'table', flexible: true },
    { title: 'next autovacuum' },
    { title: 'vacuums/h', align: /** @type {const} */ ('right') },
    { title: 'dead at start', align: /** @type {const} */ ('right') }
  ]
  const withSets = sets.length > 0
  const all = withSets
    ? [
        ...columns,
        { title: 'next, with --set' },
        { title: 'vacuums/h, with', align: /** @type {const} */ ('right') },
        { title: 'dead at start, with', align: /** @type {const} */ ('right') }
      ]
    : columns
  const rows = tables.map(t => ({
    cells: [
      `${t.table}${t.enabled ? '' : ' (autovacuum off)'}${t.vacuumed ? ' (vacuumed while watched: no rates)' : ''}`,
      ...outlookCells(t.today),
      ...(withSets && t.changed ? outlookCells(t.changed) : [])
    ]
  }))
  const lines = renderTable(all, rows, { width: 160 })
  if (withSets) lines.push('', `with --set: ${sets.join(', ')}`)
  if (tables.length === 0) lines.push('no table')
  return lines.join('\n')
}

/**
 * @param {import('../pgstats/autovacuum-whatif.js').TableOutlook} outlook
 * @returns {string[]}
 */
function outlookCells(outlook) {
  return [
    outlook.reason === null
      ? 'none coming'
      : `${outlook.reason.replace('_', ' ')} in ${duration(/** @type {number} */ (outlook.nextS))}`,
    outlook.vacuumsPerHour === null ? NONE : outlook.vacuumsPerHour.toFixed(1),
    outlook.deadAtPeak === null ? NONE : count(Math.round(outlook.deadAtPeak))
  ]
}
