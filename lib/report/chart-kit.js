// What every chart specification shares: the colours of request types,
// repetitions and variants, the repetition's number, and values rounded to
// what a chart can show (to keep the page small).

import { round } from '../helpers/numbers.js'

const TYPE_COLORS = /** @type {Record<string, string>} */ ({
  insert_row: '#1f77b4',
  read_row: '#2ca02c',
  update_row: '#ff7f0e',
  injected_error: '#d62728',
  fetch_max: '#9467bd'
})
// Repetitions and variants: colours that the action bands (orange, blue,
// green, purple at low opacity) do not drown.
const PALETTE = [
  '#1c7ed6',
  '#c2255c',
  '#2b8a3e',
  '#7048e8',
  '#0b7285',
  '#e67700',
  '#5c940d',
  '#862e9c',
  '#495057',
  '#a61e4d'
]

/** @param {number} i */
export function paletteColor(i) {
  return PALETTE[i % PALETTE.length]
}

/**
 * @param {string} type
 * @param {number} i
 */
export function typeColor(type, i) {
  return TYPE_COLORS[type] ?? paletteColor(i + 5)
}

/**
 * The repetition's number, from its directory (rep-2), else its place.
 * @param {string} dir
 * @param {number} i
 */
export function repNumber(dir, i) {
  const match = /rep-(\d+)$/.exec(dir)
  return match ? match[1] : String(i + 1)
}

/**
 * A value as a chart holds it: whole from 100 up, else two decimals.
 * @param {number | null} value
 */
export function chartValue(value) {
  if (value === null || !Number.isFinite(value)) return null
  const magnitude = Math.abs(value)
  return magnitude >= 100 ? Math.round(value) : round(value, 2)
}
