// The chaos soak's tables, as Markdown: the faults as they happened and
// the change the run's summary found at each, then the end checks.

/**
 * A cell's text: Markdown's column bar escaped, one line.
 * @param {unknown} value
 */
function cell(value) {
  const text = typeof value === 'boolean' ? (value ? 'yes' : '**no**') : String(value)
  return text.replaceAll('|', '\\|').replaceAll(/\s*\n\s*/g, ' ')
}

/**
 * @param {string[]} columns
 * @param {unknown[][]} rows
 */
function table(columns, rows) {
  return [
    `| ${columns.join(' | ')} |`,
    `| ${columns.map(() => '---').join(' | ')} |`,
    ...rows.map(row => `| ${row.map(cell).join(' | ')} |`)
  ]
}

/**
 * @param {import('./checks.js').NamedFault[]} faults
 * @param {import('./checks.js').Check[]} checks
 * @returns {string[]}
 */
export function soakTables(faults, checks) {
  const faultRows = faults.map(f => [
    f.from_s,
    f.to_s,
    f.planned.kind,
    f.detail,
    f.change ? `${f.change.at_s} s: ${f.change.metric} ${effectText(f.change.effect)}` : '**none**',
    f.change ? (f.change.causes?.[0]?.label ?? 'no cause seen') : ''
  ])
  const met = checks.filter(c => c.met).length
  return [
    ...table(['from (s)', 'to (s)', 'fault', 'what was done', 'change found', 'first cause named'], faultRows),
    '',
    ...table(
      ['check', 'value', 'limit', 'met'],
      checks.map(c => [c.name, c.value, c.limit, c.met])
    ),
    '',
    `${met} of ${checks.length} checks met`
  ]
}

/** @param {number | null} effect */
function effectText(effect) {
  return effect === null ? '(from 0)' : `${effect > 0 ? '+' : ''}${Math.round(effect * 100)} %`
}
