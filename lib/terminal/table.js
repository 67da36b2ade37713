import stringWidth from 'string-width'

// Aligned text columns for a terminal: widths measured as a terminal shows
// them (string-width: wide and combining characters), numbers right-aligned,
// one flexible column cut to fit the width, and colour added only after
// padding so that escape codes never count as width.

/**
 * @typedef {object} Column
 * @property {string} title
 * @property {'left' | 'right'} [align]     right for numbers
 * @property {boolean} [flexible]          the column cut to fit the width (one at most)
 * @property {number} [min]                narrowest a flexible column gets
 */

/**
 * @typedef {object} Row
 * @property {string[]} cells                 plain text, one per column
 * @property {(text: string) => string} [style]      colours the whole padded line
 * @property {((text: string) => string)[]} [cellStyles] colours one padded cell each
 */

const GAP = '  '

/**
 * @param {Column[]} columns
 * @param {Row[]} rows
 * @param {{ width?: number, header?: (text: string) => string }} [options]
 * @returns {string[]} the lines, header first, no newlines
 */
export function renderTable(columns, rows, { width = 80, header = s => s } = {}) {
  const widths = columns.map((column, i) =>
    Math.max(stringWidth(column.title), ...rows.map(row => stringWidth(row.cells[i] ?? '')))
  )
  const flexible = columns.findIndex(column => column.flexible)
  const total = widths.reduce((a, b) => a + b, 0) + GAP.length * (columns.length - 1)
  if (flexible >= 0 && total > width) {
    const min = Math.max(columns[flexible].min ?? 8, stringWidth(columns[flexible].title))
    widths[flexible] = Math.max(min, widths[flexible] - (total - width))
  }
  /**
   * @param {string[]} cells
   * @param {((text: string) => string)[]} [styles]
   */
  const line = (cells, styles = []) =>
    columns
      .map((column, i) => {
        const text = fit(cells[i] ?? '', widths[i])
        const padded = pad(text, widths[i], column.align ?? 'left')
        return styles[i] ? styles[i](padded) : padded
      })
      .join(GAP)
      .trimEnd()
  return [
    header(line(columns.map(column => column.title))),
    ...rows.map(row => (row.style ?? (s => s))(line(row.cells, row.cellStyles)))
  ]
}

/**
 * @param {string} text
 * @param {number} width
 * @param {'left' | 'right'} align
 */
export function pad(text, width, align) {
  const room = ' '.repeat(Math.max(0, width - stringWidth(text)))
  return align === 'right' ? room + text : text + room
}

/**
 * The text cut to width columns, with an ellipsis when it was cut.
 * @param {string} text
 * @param {number} width
 */
export function fit(text, width) {
  if (stringWidth(text) <= width) return text
  if (width <= 0) return ''
  let kept = ''
  for (const char of text) {
    if (stringWidth(kept + char) > width - 1) break
    kept += char
  }
  return `${kept}…`
}
