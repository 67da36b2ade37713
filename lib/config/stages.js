import { quote } from '../helpers/quote.js'
import { DURATION_UNITS } from './number-flags.js'

// Load over time: --stages and a plan step's ramp. A stage is a duration
// and a target; the value (clients in a closed loop, requests/s in an open
// one) moves in a straight line from where the previous stage left it to
// the stage's target over the stage's duration, as k6's ramping executors
// do. Once the stages are over the last target holds.
//
// The stages become a profile: points of a piecewise-linear function of the
// seconds since the load started. A closed loop follows it with a timer
// (ConcurrencyRamp); an open loop's schedule is computed from its integral
// (pacer.js), so that arrivals follow the ramp exactly instead of in steps.

/** @typedef {{ seconds: number, target: number }} Stage */
/** @typedef {Array<{ atS: number, value: number }>} Profile  ascending atS, the first at 0 */

const STAGE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?:(\d+(?:\.\d+)?)$/

/**
 * Stages as text, duration:target separated by commas ("30s:8,2m:32,30s:0"),
 * checked. A refusal is thrown as refuse(problem): the caller words it.
 * @param {unknown} text
 * @param {{ whole: boolean, max: number, maxSeconds: number, refuse: (problem: string) => Error }} rules
 *   whole: targets are numbers of clients; max: the largest target; maxSeconds: the longest total
 * @returns {Stage[]}
 */
export function parseStages(text, { whole, max, maxSeconds, refuse }) {
  const form = 'must be stages like 30s:8,2m:32,30s:0 (a duration and a target each)'
  if (typeof text !== 'string' || text.trim() === '') throw refuse(form)
  const stages = text.split(',').map((part, i) => {
    const match = STAGE.exec(part.trim())
    if (!match) throw refuse(`${form}; stage ${i + 1} is ${quote(part.trim(), 20)}`)
    const target = Number(match[3])
    if (whole && !Number.isInteger(target)) {
      throw refuse(`must have whole numbers of clients as targets (stage ${i + 1}; with --rate they are requests/s)`)
    }
    if (target > max) throw refuse(`must have targets of at most ${max} (stage ${i + 1})`)
    return {
      seconds: Number(match[1]) * DURATION_UNITS[/** @type {keyof typeof DURATION_UNITS} */ (match[2] ?? '')],
      target
    }
  })
  const total = stagesSeconds(stages)
  if (!(total > 0)) throw refuse('must last more than 0 s in all')
  if (total > maxSeconds) throw refuse(`must last at most ${maxSeconds} s in all`)
  return stages
}

/** @param {readonly Stage[]} stages */
export function stagesSeconds(stages) {
  return stages.reduce((sum, stage) => sum + stage.seconds, 0)
}

/**
 * The stages as a profile that starts at `from`.
 * @param {readonly Stage[]} stages
 * @param {number} from
 * @returns {Profile}
 */
export function profileOf(stages, from) {
  /** @type {Profile} */
  const points = [{ atS: 0, value: from }]
  let at = 0
  for (const stage of stages) {
    at += stage.seconds
    points.push({ atS: at, value: stage.target })
  }
  return points
}

/**
 * The profile's value at tS seconds.
 * @param {Profile} profile
 * @param {number} tS
 */
export function valueAt(profile, tS) {
  for (let i = 1; i < profile.length; i++) {
    const a = profile[i - 1]
    const b = profile[i]
    if (tS < b.atS) return tS <= a.atS ? a.value : a.value + ((b.value - a.value) * (tS - a.atS)) / (b.atS - a.atS)
  }
  return profile[profile.length - 1].value
}

/**
 * The integral of the profile from 0 to tS: of a rate, the arrivals due by then.
 * @param {Profile} profile
 * @param {number} tS
 */
export function areaUntil(profile, tS) {
  let area = 0
  for (let i = 1; i < profile.length; i++) {
    const a = profile[i - 1]
    const b = profile[i]
    if (tS <= a.atS) return area
    const end = Math.min(tS, b.atS)
    area += ((a.value + valueAt(profile, end)) / 2) * (end - a.atS)
  }
  const last = profile[profile.length - 1]
  return tS > last.atS ? area + last.value * (tS - last.atS) : area
}

/**
 * When the integral reaches `area`: the inverse of areaUntil. Infinity when
 * it never does (the profile ends at 0 below it).
 * @param {Profile} profile
 * @param {number} area
 */
export function timeOfArea(profile, area) {
  if (area <= 0) return firstPositive(profile)
  let left = area
  for (let i = 1; i < profile.length; i++) {
    const a = profile[i - 1]
    const b = profile[i]
    const width = b.atS - a.atS
    const piece = ((a.value + b.value) / 2) * width
    if (piece >= left && piece > 0) {
      // a.value·x + slope·x²/2 = left, solved in the form that stays exact when the slope is 0
      const slope = (b.value - a.value) / width
      const root = Math.sqrt(Math.max(0, a.value * a.value + 2 * slope * left))
      return a.atS + Math.min(width, (2 * left) / (a.value + root))
    }
    left -= piece
  }
  const last = profile[profile.length - 1]
  return last.value > 0 ? last.atS + left / last.value : Infinity
}

/**
 * Where the profile first rises above 0 (0 if it starts above).
 * @param {Profile} profile
 */
function firstPositive(profile) {
  if (profile[0].value > 0) return 0
  for (let i = 1; i < profile.length; i++) if (profile[i].value > 0) return profile[i - 1].atS
  return Infinity
}

/** How often a closed loop's clients follow their profile. */
const TICK_MS = 100

// A closed loop's clients along a profile: every tick the value is rounded
// to whole clients and applied when it changed. Ticks are counted from the
// origin rather than from the previous tick, so a slow event loop does not
// stretch the ramp. Only a change of the profile's own value is applied: a
// change made through the control API holds until the profile moves on.
export class ConcurrencyRamp {
  /**
   * @param {{ profile: Profile, apply: (clients: number) => void, current: () => number, originMs?: number }} options
   *   originMs: when the profile's second 0 is (Date.now() clock; default now)
   */
  constructor({ profile, apply, current, originMs = Date.now() }) {
    this.profile = profile
    this.apply = apply
    this.current = current
    this.originMs = originMs
    /** @type {NodeJS.Timeout | null} */
    this.timer = null
    this.ticks = 0
    /** @type {number | null} what the profile asked for last */
    this.applied = null
  }

  /** The clients the profile asks for now. */
  target() {
    return Math.round(valueAt(this.profile, (Date.now() - this.originMs) / 1000))
  }

  start() {
    this.follow()
    return this
  }

  follow() {
    const clients = this.target()
    if (clients !== this.applied) {
      this.applied = clients
      if (clients !== this.current()) this.apply(clients)
    }
    // past the last point nothing changes any more
    if ((Date.now() - this.originMs) / 1000 >= this.profile[this.profile.length - 1].atS) return
    this.ticks++
    this.timer = setTimeout(() => this.follow(), Math.max(0, this.originMs + this.ticks * TICK_MS - Date.now()))
  }

  stop() {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }
}
