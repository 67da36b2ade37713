import { InputError } from '../errors.js'
import { printable, quote, shown } from '../helpers/quote.js'
import { isFigure } from '../report/answer-figures.js'
import { object, string } from './plan-fields.js'
import { fieldNames } from './plan-table.js'

// A plan's question (`question:`, one sentence) and the effects it expects
// (`expect:`, one or a list): which figure, of which variant, against which
// other variants or a fixed value, in which direction. The report and the
// end of `pgloadgen experiment` open with them and what was measured
// (report/answer-lead.js).

const EXPECT_FIELDS = fieldNames('expect')
const DIRECTIONS = ['lower', 'higher']

/**
 * @typedef {object} Expectation
 * @property {string} figure       a name of report/answer-figures.js
 * @property {string} variant
 * @property {string[]} versus     the variants it is compared with (empty: against than)
 * @property {number | null} than  a fixed value it is compared with (null: against versus)
 * @property {'lower' | 'higher'} direction
 */

/**
 * @param {unknown} value
 * @returns {string | null}
 */
export function parseQuestion(value) {
  if (value === undefined) return null
  const question = string(value, 'question').trim()
  if (question.includes('\n')) {
    throw new InputError('question: one sentence, on one line', { code: 'PGLG_INVALID_VALUE' })
  }
  if (question.length > 300) {
    throw new InputError(`question: at most 300 characters, got ${question.length}`, { code: 'PGLG_INVALID_VALUE' })
  }
  return question
}

/**
 * @param {unknown} value
 * @param {string[]} variants  the plan's variants, the matrix expanded (freeze-pg16)
 * @returns {Expectation[]}
 */
export function parseExpect(value, variants) {
  if (value === undefined) return []
  const list = Array.isArray(value) ? value : [value]
  if (list.length === 0) {
    throw new InputError('expect: expected an effect or a non-empty list of them', { code: 'PGLG_MISSING_VALUE' })
  }
  return list.map((item, i) => parseOne(item, Array.isArray(value) ? `expect[${i}]` : 'expect', variants))
}

/**
 * @param {unknown} value
 * @param {string} field
 * @param {string[]} variants
 * @returns {Expectation}
 */
function parseOne(value, field, variants) {
  const spec = object(value, field)
  for (const key of Object.keys(spec)) {
    if (!EXPECT_FIELDS.includes(key)) {
      throw new InputError(`${field}.${printable(key, 40)}: unknown field`, { code: 'PGLG_UNKNOWN_OPTION' })
    }
  }
  const figure = string(spec.figure, `${field}.figure`)
  if (!isFigure(figure)) {
    throw new InputError(`${field}.figure: unknown figure ${quote(figure)} (docs/plans.md#expect lists them)`, {
      code: 'PGLG_INVALID_CHOICE'
    })
  }
  const variant = variantName(spec.variant, `${field}.variant`, variants)
  const direction = string(spec.direction, `${field}.direction`)
  if (!DIRECTIONS.includes(direction)) {
    throw new InputError(`${field}.direction: lower or higher, got ${shown(direction)}`, {
      code: 'PGLG_INVALID_CHOICE'
    })
  }
  if ((spec.versus === undefined) === (spec.than === undefined)) {
    throw new InputError(`${field}: give versus (other variants) or than (a fixed value), one of them`, {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
  const versus =
    spec.versus === undefined
      ? []
      : (Array.isArray(spec.versus) ? spec.versus : [spec.versus]).map((v, j) =>
          variantName(v, Array.isArray(spec.versus) ? `${field}.versus[${j}]` : `${field}.versus`, variants)
        )
  if (versus.includes(variant)) {
    throw new InputError(`${field}.versus: ${quote(variant)} against itself`, { code: 'PGLG_INVALID_CHOICE' })
  }
  if (spec.versus !== undefined && versus.length === 0) {
    throw new InputError(`${field}.versus: an empty list`, { code: 'PGLG_MISSING_VALUE' })
  }
  if (spec.than !== undefined && (typeof spec.than !== 'number' || !Number.isFinite(spec.than))) {
    throw new InputError(`${field}.than: expected a number, got ${shown(spec.than)}`, { code: 'PGLG_INVALID_NUMBER' })
  }
  return {
    figure,
    variant,
    versus,
    than: spec.than === undefined ? null : /** @type {number} */ (spec.than),
    direction: /** @type {'lower' | 'higher'} */ (direction)
  }
}

/**
 * @param {unknown} value
 * @param {string} field
 * @param {string[]} variants
 */
function variantName(value, field, variants) {
  const name = string(value, field)
  if (!variants.includes(name)) {
    throw new InputError(`${field}: no variant ${quote(name)} (the plan has ${variants.join(', ')})`, {
      code: 'PGLG_INVALID_CHOICE'
    })
  }
  return name
}
