import { InputError } from '../errors.js'
import { quote } from '../helpers/quote.js'
import { round } from '../helpers/numbers.js'

// --threshold: a condition a run must meet, `[type:]figure op value[unit]`,
// parsed here into what lib/summary/threshold-verdicts.js judges a summary by. The
// figures are named after the summary's own (p99 is latency_us.p99,
// throughput is throughput, a type's failed is requests[type].failed), so
// that what a threshold reads is what --json prints. A limit is kept in the
// summary's unit (latencies in µs, rates per second, a failed rate as a
// fraction), whatever unit it was written in.

/**
 * What a figure measures, which decides the units its limit may take:
 * latency (us, ms, s: required), rate (requests/s: none or /s), count (a
 * whole number, no unit), ratio (a fraction, or a percentage with %),
 * verdict (a word: the audit).
 * @typedef {'latency' | 'rate' | 'count' | 'ratio' | 'verdict'} FigureKind
 */

/**
 * @typedef {object} FigureSpec
 * @property {FigureKind} kind
 * @property {boolean} perType     may be scoped to a request type (type:figure)
 * @property {boolean} [growing]   only ever grows during a run: once past an upper limit it cannot come back
 *   (--threshold-abort decides at once)
 * @property {number} [quantile]   a latency percentile: the quantile it is
 * @property {'lag' | 'open'} [needs]  lag: only runs on a schedule (open loop or paced clients) have it; open: only the
 *   open loop
 * @property {string} describe
 */

/** p50 … p99.9 of a histogram, as the figures name them. */
export const QUANTILES = Object.freeze({ p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, 'p99.9': 0.999 })

/** @type {Record<string, FigureSpec>} */
const figures = {}
// in the order a refusal lists them: latencies, counts, then the schedule's and the audit
for (const [name, q] of Object.entries(QUANTILES))
  figures[name] = { kind: 'latency', perType: true, quantile: q, describe: `${name} latency` }
Object.assign(figures, {
  max: { kind: 'latency', perType: true, growing: true, describe: 'the longest latency' },
  mean: { kind: 'latency', perType: true, describe: 'the mean latency' },
  throughput: { kind: 'rate', perType: true, describe: 'requests done per second' },
  done: { kind: 'count', perType: true, growing: true, describe: 'requests done, ok or not' },
  failed: { kind: 'count', perType: true, growing: true, describe: 'requests that failed' },
  failed_rate: { kind: 'ratio', perType: true, describe: 'failed requests over requests done' },
  timeouts: {
    kind: 'count',
    perType: true,
    growing: true,
    describe: 'requests that got no answer within --request-timeout'
  },
  unexpected_failures: {
    kind: 'count',
    perType: false,
    growing: true,
    describe: 'failures other than those a type expects'
  },
  reconnects: { kind: 'count', perType: false, growing: true, describe: 'connections opened again after one broke' }
})
for (const [name, q] of Object.entries(QUANTILES))
  figures[`lag_${name}`] = {
    kind: 'latency',
    perType: false,
    quantile: q,
    needs: 'lag',
    describe: `${name} schedule lag`
  }
Object.assign(figures, {
  lag_max: { kind: 'latency', perType: false, growing: true, needs: 'lag', describe: 'the longest schedule lag' },
  skipped: {
    kind: 'count',
    perType: false,
    growing: true,
    needs: 'open',
    describe: 'open loop: intended starts skipped (--max-lag)'
  },
  audit: {
    kind: 'verdict',
    perType: false,
    describe: 'the acknowledged-write audit: exact when it was checked and nothing acknowledged is missing or vanished'
  }
})

/** Every figure a threshold may name, by name. */
export const FIGURES = Object.freeze(figures)

/** Other names of figures: the issue's and k6's words for them. */
const ALIASES = Object.freeze({ failures: 'failed', failure_rate: 'failed_rate', rps: 'throughput' })

/** @typedef {'<' | '<=' | '>' | '>=' | '==' | '!='} Op */
const OPS = /** @type {readonly Op[]} */ (['<=', '>=', '==', '!=', '<', '>'])

/** The verdicts of the audit a threshold may ask for. */
export const AUDIT_VALUES = Object.freeze(['exact'])

const LATENCY_UNITS = Object.freeze({ us: 1, µs: 1, ms: 1000, s: 1e6 })

/**
 * One threshold, parsed; limit in the summary's unit (unit says which).
 * @typedef {object} Threshold
 * @property {string} expr      as given, trimmed
 * @property {string | null} type   a request type, or null: every request
 * @property {string} figure    a key of FIGURES
 * @property {Op} op
 * @property {number | string} limit
 * @property {'us' | 'req/s' | 'count' | 'ratio' | 'verdict'} unit
 */

/**
 * What the run is, for the checks that depend on it.
 * @typedef {object} ThresholdContext
 * @property {readonly string[]} [types]   the workload's request types (unchecked when absent)
 * @property {'closed' | 'open' | 'paced'} [mode]   lag figures need open or paced; skipped needs open
 * @property {boolean} [audits]   the workload audits its acknowledged writes (an id table or an audit table)
 */

/**
 * The --threshold values (one, or a list when repeated), each parsed.
 * @param {unknown} value   a string or an array of strings
 * @param {ThresholdContext & { label?: string }} [context]
 * @returns {Threshold[]}
 */
export function parseThresholds(value, { label = '--threshold', ...context } = {}) {
  const list = Array.isArray(value) ? value : [value]
  const parsed = list.map(item => parseThreshold(item, context, label))
  const seen = new Set()
  for (const threshold of parsed) {
    // the same condition twice is a slip: its row would appear twice
    if (seen.has(canonical(threshold))) {
      throw new InputError(`${label} ${quote(threshold.expr, 80)} is given twice`, { code: 'PGLG_INVALID_EXPRESSION' })
    }
    seen.add(canonical(threshold))
  }
  return parsed
}

/** @param {Threshold} t */
function canonical(t) {
  return `${t.type ?? ''}:${t.figure}${t.op}${t.limit}`
}

/**
 * One threshold; refused in one line naming what is wrong.
 * @param {unknown} text
 * @param {ThresholdContext} [context]
 * @param {string} [label]
 * @returns {Threshold}
 */
export function parseThreshold(text, context = {}, label = '--threshold') {
  const expr = typeof text === 'string' ? text.trim() : ''
  /** @param {string} problem */
  const refuse = problem =>
    new InputError(`${label} ${quote(typeof text === 'string' ? expr : String(text), 80)}: ${problem}`, {
      code: 'PGLG_INVALID_EXPRESSION'
    })
  const grammar = 'must be [type:]figure op value, like p99<5ms or insert_row:p95<=2ms'
  if (expr === '') throw refuse(grammar)
  const at = opAt(expr)
  if (!at) throw refuse(/[^<>!=]=[^=]/.test(expr) ? `${grammar} (== compares)` : grammar)
  const left = expr.slice(0, at.index).trim()
  const right = expr.slice(at.index + at.op.length).trim()
  const colon = left.lastIndexOf(':')
  const type = colon < 0 ? null : left.slice(0, colon).trim()
  const written = (colon < 0 ? left : left.slice(colon + 1)).trim().toLowerCase()
  if (type === '' || written === '' || right === '') throw refuse(grammar)
  const figure = /** @type {Record<string, string>} */ (ALIASES)[written] ?? written
  const spec = Object.hasOwn(FIGURES, figure) ? FIGURES[figure] : null
  if (!spec) throw refuse(`unknown figure ${quote(written, 40)}; figures: ${Object.keys(FIGURES).join(', ')}`)
  if (type !== null) {
    if (!spec.perType) throw refuse(`${figure} is a figure of the whole run, not of a request type`)
    if (context.types && !context.types.includes(type)) {
      throw refuse(`the workload has no request type ${quote(type, 40)}; its types: ${context.types.join(', ')}`)
    }
  }
  if (spec.needs === 'lag' && context.mode === 'closed') {
    throw refuse(`${figure} needs a schedule (--rate, or a paced workload): a closed loop has no lag`)
  }
  if (spec.needs === 'open' && context.mode !== undefined && context.mode !== 'open') {
    throw refuse(`${figure} needs the open loop (--rate)`)
  }
  if (figure === 'audit' && context.audits === false) throw refuse('this workload audits no acknowledged writes')
  const { limit, unit } = parseLimit(right, figure, spec, at.op, refuse)
  return { expr, type, figure, op: at.op, limit, unit }
}

/**
 * The first comparison operator in the text, the longer spelling first.
 * @param {string} expr
 * @returns {{ index: number, op: Op } | null}
 */
function opAt(expr) {
  for (let i = 0; i < expr.length; i++) {
    for (const op of OPS) if (expr.startsWith(op, i)) return { index: i, op }
  }
  return null
}

/**
 * The limit in the summary's unit.
 * @param {string} text   what follows the operator
 * @param {string} figure
 * @param {FigureSpec} spec
 * @param {Op} op
 * @param {(problem: string) => Error} refuse
 * @returns {{ limit: number | string, unit: Threshold['unit'] }}
 */
function parseLimit(text, figure, spec, op, refuse) {
  if (spec.kind === 'verdict') {
    if (op !== '==' && op !== '!=') throw refuse(`${figure} is compared with == or != (audit==exact)`)
    if (!AUDIT_VALUES.includes(text.toLowerCase())) {
      throw refuse(`${figure} can be ${AUDIT_VALUES.join(', ')}, not ${quote(text, 40)}`)
    }
    return { limit: text.toLowerCase(), unit: 'verdict' }
  }
  // the unit starts with no digit, so the number's end is never in doubt (no backtracking on long input)
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*([^\d\s]*)$/.exec(text)
  if (!match) throw refuse(`${figure} needs a number, not ${quote(text, 40)}`)
  const n = Number(match[1])
  if (!Number.isFinite(n)) throw refuse(`${figure}: the limit is too large`)
  const unit = match[2].toLowerCase()
  switch (spec.kind) {
    case 'latency': {
      const factor = /** @type {Record<string, number>} */ (LATENCY_UNITS)[unit]
      if (unit === '') throw refuse(`${figure} is a latency: give its unit, us, ms or s (${figure}${op}${n}ms)`)
      if (factor === undefined) throw refuse(`unit ${quote(unit, 20)} does not fit ${figure}, a latency (us, ms or s)`)
      return { limit: n * factor, unit: 'us' }
    }
    case 'rate':
      if (unit !== '' && unit !== '/s') {
        throw refuse(`unit ${quote(unit, 20)} does not fit ${figure}, requests per second (a number, or with /s)`)
      }
      return { limit: n, unit: 'req/s' }
    case 'count':
      if (unit !== '') throw refuse(`unit ${quote(unit, 20)} does not fit ${figure}, a count (a whole number, no unit)`)
      if (!Number.isInteger(n)) throw refuse(`${figure} is a count: the limit must be a whole number`)
      return { limit: n, unit: 'count' }
    case 'ratio': {
      if (unit !== '' && unit !== '%') {
        throw refuse(`unit ${quote(unit, 20)} does not fit ${figure}, a fraction (0.01) or a percentage (1%)`)
      }
      const fraction = unit === '%' ? n / 100 : n
      if (fraction > 1) throw refuse(`${figure} is at most 1 (100%)`)
      return { limit: fraction, unit: 'ratio' }
    }
  }
  throw refuse(`${figure} cannot be compared`)
}

/**
 * The limit as a person writes it: 5 ms, 5000 req/s, 1%, exact.
 * @param {Pick<Threshold, 'limit' | 'unit'>} threshold
 */
export function formatLimit({ limit, unit }) {
  return formatValue(limit, unit)
}

/**
 * A figure's value in its threshold's unit, for the table and the log.
 * @param {number | string | null} value
 * @param {Threshold['unit']} unit
 */
export function formatValue(value, unit) {
  if (value === null) return '-'
  if (typeof value === 'string') return value
  switch (unit) {
    case 'us':
      return value >= 1e6
        ? `${round(value / 1e6, 3)} s`
        : value >= 1000
          ? `${round(value / 1000, 3)} ms`
          : `${round(value, 1)} µs`
    case 'req/s':
      return `${round(value, 1)} req/s`
    case 'ratio':
      return `${round(value * 100, 3)}%`
    default:
      return String(value)
  }
}
