import { figureOf, figureValues } from './answer-figures.js'
import { effectVerdict, oneSampleEffect, twoSampleEffect } from '../results/t-interval.js'
import { methodSentence } from './answer-method.js'

// What an experiment's report and the end of `pgloadgen experiment` open
// with: the plan's question, and for each effect it expects (a plan's
// `expect:`) the effect measured, with its interval, and whether it
// appeared; then the known-answer error of the method.

/**
 * @typedef {object} Expectation
 * @property {string} figure
 * @property {string} variant
 * @property {string[]} versus
 * @property {number | null} than
 * @property {'lower' | 'higher'} direction
 */

/** @typedef {'appeared' | 'opposite' | 'not shown' | 'no interval' | 'not measured'} AnswerVerdict */

/**
 * @typedef {object} AnswerItem
 * @property {Expectation} expect
 * @property {string} expected   the expected effect, in words
 * @property {string} measured   what was measured, in words
 * @property {AnswerVerdict} verdict   appeared only when it appeared against every versus
 */

/**
 * @typedef {object} Answer
 * @property {string | null} question
 * @property {string} headline   yes, no, in part, or cannot tell, in one sentence
 * @property {AnswerItem[]} items
 * @property {string} method     the intervals and their measured error
 */

/**
 * The answer of an experiment: null when its plan states neither a question nor an expected effect.
 * @param {Record<string, any>} plan       the plan as experiment.json records it
 * @param {Record<string, any>} summary    the experiment's summary.json
 * @returns {Answer | null}
 */
export function experimentAnswer(plan, summary) {
  /** @type {Expectation[]} */
  const expect = Array.isArray(plan?.expect) ? plan.expect : []
  const question = typeof plan?.question === 'string' ? plan.question : null
  if (question === null && expect.length === 0) return null
  const items = expect.map(e => answerItem(e, summary))
  return { question, headline: headline(items), items, method: methodSentence() }
}

/**
 * @param {AnswerItem[]} items
 * @returns {string}
 */
function headline(items) {
  if (items.length === 0) return 'Answer: the plan states no expected effect to check.'
  const count = (/** @type {AnswerVerdict} */ verdict) => items.filter(i => i.verdict === verdict).length
  const appeared = count('appeared')
  const one = items.length === 1
  if (appeared === items.length)
    return `Answer: yes: ${one ? 'the expected effect' : `all ${items.length} expected effects`} appeared.`
  if (count('no interval') + count('not measured') === items.length) {
    return 'Answer: cannot tell: no expected effect could be measured with an interval.'
  }
  if (appeared > 0) return `Answer: in part: ${appeared} of ${items.length} expected effects appeared.`
  if (count('opposite') === items.length)
    return `Answer: no: the opposite of ${one ? 'the expected effect' : 'each expected effect'} appeared.`
  const none = one ? 'the expected effect did not appear' : `none of the ${items.length} expected effects appeared`
  return `Answer: not shown: ${none}.`
}

/**
 * @param {Expectation} expect
 * @param {Record<string, any>} summary
 * @returns {AnswerItem}
 */
function answerItem(expect, summary) {
  const figure = figureOf(expect.figure)
  /** @param {string} name */
  const valuesOf = name => {
    const variant = (summary.variants ?? []).find((/** @type {any} */ v) => v.name === name)
    return variant && figure ? figureValues(expect.figure, variant) : []
  }
  const label = figure?.label ?? expect.figure
  const against =
    expect.than !== null ? `than ${formatValue(expect.than, figure?.unit)}` : `than on ${names(expect.versus)}`
  const expected = `${label} ${expect.direction} on ${expect.variant} ${against}`
  const mine = valuesOf(expect.variant)
  const others = expect.than !== null ? [null] : expect.versus
  const parts = others.map(other => {
    const theirs = other === null ? [] : valuesOf(other)
    if (mine.length === 0 || (other !== null && theirs.length === 0)) {
      return {
        verdict: /** @type {AnswerVerdict} */ ('not measured'),
        text: `not recorded${other ? ` against ${other}` : ''}`
      }
    }
    const effect =
      other === null ? oneSampleEffect(mine, /** @type {number} */ (expect.than)) : twoSampleEffect(mine, theirs)
    return { verdict: effectVerdict(effect, expect.direction), text: effectText(effect, figure?.unit, other) }
  })
  const verdict = combined(parts.map(p => p.verdict))
  return {
    expect,
    expected: `Expected: ${expected}.`,
    measured: `Measured: ${parts.map(p => p.text).join('; ')}: ${VERDICT_WORDS[verdict]}.`,
    verdict
  }
}

/** @type {Record<AnswerVerdict, string>} */
const VERDICT_WORDS = {
  appeared: 'it appeared',
  opposite: 'the opposite appeared',
  'not shown': 'not shown (the interval includes no effect)',
  'no interval': 'no interval (fewer than 3 repetitions), so not shown',
  'not measured': 'not measured'
}

/**
 * Against several variants, an effect appeared only when it appeared against each.
 * @param {AnswerVerdict[]} verdicts
 * @returns {AnswerVerdict}
 */
function combined(verdicts) {
  for (const v of /** @type {AnswerVerdict[]} */ (['not measured', 'no interval', 'opposite', 'not shown'])) {
    if (verdicts.includes(v)) return v
  }
  return 'appeared'
}

/** @param {string[]} list */
function names(list) {
  return list.length <= 1 ? list.join('') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`
}

/**
 * @param {import('../results/t-interval.js').Effect} effect
 * @param {string | undefined} unit
 * @param {string | null} other
 */
function effectText(effect, unit, other) {
  const reps = `${effect.n.join(' and ')} repetition${effect.n.length === 1 && effect.n[0] === 1 ? '' : 's'}`
  const ends = effect.low === null || effect.high === null ? null : [effect.low, effect.high]
  const interval = ends
    ? `95 % interval ${ends.map(end => formatEffect(end, effect.kind, unit)).join(' to ')}`
    : 'no interval'
  const what =
    effect.kind === 'mean'
      ? `a mean of ${formatValue(effect.estimate, unit)}`
      : formatEffect(effect.estimate, effect.kind, unit)
  return `${what}${other ? ` against ${other}` : ''} (${interval}; ${reps})`
}

/**
 * @param {number} value
 * @param {'ratio' | 'difference' | 'mean'} kind
 * @param {string | undefined} unit
 */
function formatEffect(value, kind, unit) {
  if (kind === 'ratio') return `${value.toPrecision(3)}×`
  if (kind === 'mean') return formatValue(value, unit)
  return `${value >= 0 ? '+' : '-'}${formatValue(Math.abs(value), unit)}`
}

/**
 * @param {number} value
 * @param {string | undefined} unit
 */
export function formatValue(value, unit) {
  const whole = (/** @type {number} */ v) => Math.round(v).toLocaleString('en-US').replace(/,/g, ' ')
  switch (unit) {
    case 'bytes':
      return `${(value / 1e6).toPrecision(3)} MB`
    case 'pages':
      return `${whole(value)} pages`
    case 'seconds':
      return `${value.toPrecision(3)} s`
    case 'us':
      return `${(value / 1000).toPrecision(3)} ms`
    case 'per_s':
      return `${Math.abs(value) >= 1000 ? whole(value) : value.toPrecision(3)}/s`
    case 'count':
      return whole(value)
    default:
      return value.toPrecision(3)
  }
}

/**
 * The answer as lines of text, the question first.
 * @param {Answer} answer
 * @returns {string[]}
 */
export function answerLines(answer) {
  return [
    ...(answer.question ? [`Question: ${answer.question}`] : []),
    answer.headline,
    ...answer.items.flatMap(item => [item.expected, item.measured]),
    ...(answer.items.length > 0 ? [answer.method] : [])
  ]
}
