import { renderTable } from '../terminal/table.js'
import { ms, rate as perSecond, count } from '../terminal/figure-format.js'

/**
 * A rate asked: whole from 100 up, three significant figures below (the search's own rounding).
 * @param {number | null} rate
 */
export function askedRate(rate) {
  return rate === null ? '-' : rate >= 100 ? count(rate) : String(rate)
}

// How `pgloadgen capacity` shows its search: one row per step as it ends,
// the table of every step at the end, and the result in one line.

/** @typedef {import('./step-measure.js').CapacityStep} CapacityStep */
/** @typedef {import('./search.js').SearchResult} SearchResult */

/**
 * A step as one log line, while the search runs.
 * @param {CapacityStep} step
 */
export function stepLine(step) {
  const figures = step.objectives.map(o => `${o.objective.replace(/[<=].*$/, '')} ${ms(o.valueUs)} ms`).join(', ')
  const pace = step.keptPace ? '' : ', fell behind'
  const late = step.latenessP99Us === null ? '' : `, generator late ${ms(step.latenessP99Us)} ms`
  return `step ${step.step} (${step.phase}): ${askedRate(step.rate)} requests/s asked, ${perSecond(step.achieved)} ended; ${figures}${late}${pace}: ${step.held ? 'held' : 'broke'}`
}

/**
 * Every step: rate asked, rate achieved, p99, lag, each objective's figure, held or broke.
 * @param {CapacityStep[]} steps
 * @param {{ width?: number }} [options]
 * @returns {string[]}
 */
export function stepsTable(steps, { width = 100 } = {}) {
  const objectives = steps[0]?.objectives.map(o => o.objective) ?? []
  // an objective on p99 or the lag p99 of every type is a column already
  const extra = objectives.filter(text => !/^(lag_)?p99<=?/.test(text))
  // a batch workload's requests are many rows each
  const withRows = steps.some(step => step.rowsPerS > step.achieved * 1.5)
  const columns = [
    { title: 'step', align: /** @type {const} */ ('right') },
    { title: 'phase' },
    { title: 'asked/s', align: /** @type {const} */ ('right') },
    { title: 'achieved/s', align: /** @type {const} */ ('right') },
    ...(withRows ? [{ title: 'rows/s', align: /** @type {const} */ ('right') }] : []),
    { title: 'p99 ms', align: /** @type {const} */ ('right') },
    { title: 'lag p99 ms', align: /** @type {const} */ ('right') },
    { title: 'gen late ms', align: /** @type {const} */ ('right') },
    ...extra.map(text => ({ title: `${text.replace(/[<=].*$/, '')} ms`, align: /** @type {const} */ ('right') })),
    { title: 'result' }
  ]
  const rows = steps.map(step => ({
    cells: [
      String(step.step),
      step.phase,
      askedRate(step.rate),
      perSecond(step.achieved),
      ...(withRows ? [count(step.rowsPerS)] : []),
      ms(step.p99Us),
      ms(step.lagP99Us),
      ms(step.latenessP99Us),
      ...extra.map(text => ms(step.objectives.find(o => o.objective === text)?.valueUs)),
      step.held ? 'held' : step.keptPace ? 'broke' : 'broke (fell behind)'
    ]
  }))
  return renderTable(columns, rows, { width })
}

/**
 * The result in one line: `capacity: 8600 requests/s (95% interval 8200–9020) for p99<10ms`.
 * @param {SearchResult} result
 * @param {string} objective
 * @param {import('./generator-limit.js').GeneratorLimit | null} [limit]  the generator decided the figures
 */
export function resultLine(result, objective, limit = null) {
  if (limit) return generatorLine(result, objective, limit)
  const confidence = result.confidence === null ? null : `${Math.floor(result.confidence * 100)}%`
  switch (result.verdict) {
    case 'above_max':
      return `capacity: above ${askedRate(result.capacity)} requests/s for ${objective} (the highest rate tried held; raise --max-rate)`
    case 'below_min':
      return `capacity: below ${askedRate(result.lowestBroken)} requests/s for ${objective} (the lowest rate tried broke)`
    default:
      if (result.capacity === null && result.verdict === 'unsettled') {
        return `capacity: unsettled for ${objective}: rates that held earlier broke later (highest held ${askedRate(result.highestHeld)}, lowest broken ${askedRate(result.lowestBroken)} requests/s); the server changed during the search`
      }
      if (result.capacity === null) {
        return `capacity: not found for ${objective} (the search stopped before a rate held and one broke)`
      }
      return `capacity: ${askedRate(result.capacity)} requests/s (${confidence} interval ${askedRate(result.low)}–${askedRate(result.high)}) for ${objective}${qualifier(result)}`
  }
}

/** @param {SearchResult} result */
function qualifier(result) {
  if (result.verdict === 'unsettled') return '; unsettled: the ends of the bracket did not agree with their first steps'
  if (result.verdict === 'stopped') return '; stopped before the boundary steps were all run'
  return ''
}

/**
 * No capacity: the generator, not the server, decided the steps.
 * @param {SearchResult} result
 * @param {string} objective
 * @param {import('./generator-limit.js').GeneratorLimit} limit
 */
function generatorLine(result, objective, limit) {
  const why =
    limit.reason === 'pace'
      ? 'the requests did not go out at the rate asked while their latencies kept the objective'
      : `its own timers fired ${ms(limit.latenessP99Us)} ms late at p99, a quarter or more of the ${limit.limitUs / 1000} ms limit`
  return `capacity: not measured for ${objective}: the generator was the limit (${why}; highest held ${askedRate(result.highestHeld)}, lowest broken ${askedRate(result.lowestBroken)} requests/s)`
}
