// Which open-loop rate to try next, and what the trials so far say: the
// search of `pgloadgen capacity`, with no server and no clock in it, so
// that it can be tested on made-up outcomes (test/unit/capacity-search.test.js).
//
// 1. climb: from the start rate, × factor after every step that held, up
//    to the maximum rate; a first step that broke goes down (÷ factor)
//    instead, to the minimum rate;
// 2. bisect: between the last rate that held and the first that broke,
//    at their geometric mean, until they are less than 1 + resolution apart
//    (a resolution widened where a step holds few requests beyond the
//    objective's percentile: step-length.js);
// 3. confirm: both ends of that bracket are tried again, in turn, until
//    each has `repeats` steps. When the lower end mostly broke, the search
//    goes down again from it (÷ factor, then bisects); when the upper end
//    mostly held, it climbs again from it; at most `maxShifts` times.
//
// Whether a step holds is a noisy outcome (the machine, checkpoints,
// autovacuum), so the result is stated of the rate at which a step holds
// half the time: with p(r) the chance that a step at rate r holds, falling
// as r rises, the interval [low, high] holds that rate unless the low end's
// holds or the high end's breaks were luck. That chance is bounded with the
// sign test: if p(low) ≤ ½, h holds of n or more happen with probability
// at most P(Bin(n, ½) ≥ h); likewise for the high end's breaks. The
// confidence is 1 minus both, times the brackets the search confirmed
// before it stopped (each was a chance to stop on a wrong one). The
// bracket was chosen on outcomes of the same kind, so this is an
// approximation, checked by simulation (docs/capacity.md).

/**
 * @typedef {object} SearchOptions
 * @property {number} startRate
 * @property {number} factor       > 1
 * @property {number} maxRate
 * @property {number} minRate
 * @property {number} resolution   > 0: the bracket is narrowed to high/low ≤ 1 + resolution
 * @property {number} repeats      ≥ 1: steps at each end of the final bracket
 * @property {number} [maxShifts]  default 4
 * @property {number} [maxTrials]  default 80
 * @property {(rate: number) => number} [resolutionAt]  the resolution near a rate, when its steps are noisier than
 *   `resolution` (step-length.js noisyResolution); default `resolution` everywhere
 */

/**
 * @typedef {object} Trial
 * @property {number} rate
 * @property {boolean} held
 * @property {'climb' | 'descend' | 'bisect' | 'confirm'} phase
 */

/**
 * @typedef {object} SearchResult
 * @property {'bracketed' | 'unsettled' | 'above_max' | 'below_min' | 'stopped'} verdict
 * @property {number | null} capacity      the lower end of the bracket: the highest rate that held in most of its steps
 * @property {number | null} low
 * @property {number | null} high
 * @property {number | null} confidence    0..1: that the rate held half the time lies in [low, high]
 * @property {{ held: number, steps: number } | null} lowSteps
 * @property {{ held: number, steps: number } | null} highSteps
 * @property {number | null} highestHeld   any step
 * @property {number | null} lowestBroken  any step
 */

export class CapacitySearch {
  /** @param {SearchOptions} options */
  constructor(options) {
    this.options = { maxShifts: 4, maxTrials: 80, ...options }
    /** @type {Trial[]} */
    this.trials = []
    /** @type {Trial['phase'] | 'done'} */
    this.phase = 'climb'
    /** @type {number | null} */
    this.low = null
    /** @type {number | null} */
    this.high = null
    this.shifts = 0
    /** @type {number | null} the last rate that held on the way up (or the bracket's end a climb started again from) */
    this.climbHeld = null
    /** @type {SearchResult['verdict'] | null} */
    this.verdict = null
    // how far a climb or a descent moves: the factor at first, two notches of the resolution once a bracket was seen
    this.moveFactor = options.factor
    /** @type {Set<number>} the rates tried as the lower end of a final bracket, and as the upper */
    this.lowEnds = new Set()
    /** @type {Set<number>} */
    this.highEnds = new Set()
    /** @type {number | null} the rate next() gave, awaiting its outcome */
    this.pending = roundRate(Math.min(options.startRate, options.maxRate))
  }

  /** The rate to try next; null when the search is over. */
  next() {
    return this.phase === 'done' ? null : this.pending
  }

  /**
   * The outcome of the step at the rate next() gave.
   * @param {boolean} held
   */
  record(held) {
    const rate = this.pending
    if (rate === null || this.phase === 'done') throw new Error('no step is awaiting an outcome')
    this.trials.push({ rate, held, phase: this.phase })
    if (this.trials.length >= /** @type {number} */ (this.options.maxTrials)) return this.finish('unsettled')
    if (this.phase === 'climb' || this.phase === 'descend') return this.widen(rate, held)
    if (this.phase === 'bisect') {
      if (held) this.low = rate
      else this.high = rate
      return this.narrow()
    }
    return this.confirm()
  }

  /** The search's time is spent: it ends unsettled unless it had ended already. */
  timeUp() {
    if (this.phase !== 'done') this.finish('unsettled')
  }

  /** Stops the search where it is (a signal): the result says what is known. */
  stop() {
    if (this.phase !== 'done') this.finish('stopped')
  }

  /**
   * @param {number} rate
   * @param {boolean} held
   */
  widen(rate, held) {
    const { maxRate, minRate } = this.options
    const factor = this.moveFactor
    // a move of the bracket goes its first notches small; if the rate is further off, at the climb's factor again
    this.moveFactor = this.options.factor
    if (held && this.phase === 'climb') {
      this.climbHeld = rate
      if (rate >= maxRate) return this.finish('above_max')
      this.pending = roundRate(Math.min(rate * factor, maxRate))
      return
    }
    if (held) {
      // descending: this rate held, the one above it broke
      this.low = rate
      return this.narrow()
    }
    if (this.phase === 'climb' && this.climbHeld !== null) {
      this.low = this.climbHeld
      this.high = rate
      return this.narrow()
    }
    this.phase = 'descend'
    this.high = rate
    const lower = roundRate(rate / factor)
    // going down again after rates held: the server changed under the search, not a capacity below the minimum
    if (lower < minRate || lower >= rate) return this.finish(this.shifts > 0 ? 'unsettled' : 'below_min')
    this.pending = lower
  }

  /** Bisects the bracket, or starts confirming its ends once it is narrow. */
  narrow() {
    const low = /** @type {number} */ (this.low)
    const high = /** @type {number} */ (this.high)
    const mid = roundRate(Math.sqrt(low * high))
    if (high / low <= 1 + this.resolutionAt(low) || mid <= low || mid >= high) {
      this.phase = 'confirm'
      return this.confirm()
    }
    this.phase = 'bisect'
    this.pending = mid
  }

  /**
   * The next step at an end of the bracket, a wider or a moved bracket, or the end.
   * @returns {void}
   */
  confirm() {
    const low = /** @type {number} */ (this.low)
    const high = /** @type {number} */ (this.high)
    const lowEnd = this.endState(low, true)
    const highEnd = this.endState(high, false)
    if (lowEnd === 'firm' && highEnd === 'firm') {
      this.lowEnds.add(low)
      this.highEnds.add(high)
      return this.finish('bracketed')
    }
    if (lowEnd === 'open' || highEnd === 'open') {
      const lowSteps = this.stepsAt(low).steps
      // the end with fewer steps first, so that both are tried in turn
      this.pending = lowEnd === 'open' && (highEnd !== 'open' || lowSteps <= this.stepsAt(high).steps) ? low : high
      return
    }
    // an end a step disagreed with: it counts as a rate tried at that end
    if (lowEnd !== 'firm') this.lowEnds.add(low)
    if (highEnd !== 'firm') this.highEnds.add(high)
    if ((lowEnd === 'wrong' && highEnd === 'wrong') || this.shifts >= /** @type {number} */ (this.options.maxShifts)) {
      return this.finish('unsettled')
    }
    this.shifts++
    // after the first bracket, the search moves by two notches of the resolution, not by the climb's factor
    this.moveFactor = (1 + this.resolutionAt(low)) ** 2
    if (lowEnd === 'wrong') return this.moveDown(low)
    if (highEnd === 'wrong') return this.moveUp(high)
    // an end whose steps split: the rate is near it, so that end goes out a notch
    return this.spread(lowEnd === 'split' ? this.notch(low, -1) : low, highEnd === 'split' ? this.notch(high, 1) : high)
  }

  /**
   * Where an end of the bracket stands: firm when every step at it went its
   * way and there are enough of them (repeats, and one more for each other
   * rate tried at that end before it, so that the union bound over them
   * keeps the end's share of the error under 1 / 2^repeats); open when every
   * step went its way so far but more are needed; split when a step went the
   * other way but no more than went its way; wrong when most went the other
   * way.
   * @param {number} rate
   * @param {boolean} isLow
   * @returns {'firm' | 'open' | 'split' | 'wrong'}
   */
  endState(rate, isLow) {
    const { held, steps } = this.stepsAt(rate)
    const agree = isLow ? held : steps - held
    if (agree === steps) return this.stepsShort(rate, isLow ? this.lowEnds : this.highEnds) === 0 ? 'firm' : 'open'
    return agree >= steps - agree ? 'split' : 'wrong'
  }

  /**
   * The bracket with an end moved out a notch, confirmed in turn; unsettled past the minimum or maximum rate.
   * @param {number | null} low
   * @param {number | null} high
   * @returns {void}
   */
  spread(low, high) {
    if (low === null || high === null) return this.finish('unsettled')
    this.low = low
    this.high = high
    return this.confirm()
  }

  /**
   * A rate a notch of the resolution below (-1) or above (1), or null past the minimum or maximum.
   * @param {number} rate
   * @param {1 | -1} direction
   */
  notch(rate, direction) {
    const { minRate, maxRate } = this.options
    const next = roundRate(rate * (1 + this.resolutionAt(rate)) ** direction)
    if (next === rate || next < minRate || next > maxRate) return null
    return next
  }

  /**
   * The boundary is below the bracket: down again from its lower end, which now counts as broken.
   * @param {number} low
   */
  moveDown(low) {
    this.phase = 'descend'
    this.high = low
    const lower = roundRate(low / this.moveFactor)
    if (lower < this.options.minRate || lower >= low) return this.finish('unsettled')
    this.pending = lower
  }

  /**
   * Above it: up again from its upper end, which now counts as held.
   * @param {number} high
   */
  moveUp(high) {
    const { maxRate } = this.options
    if (high >= maxRate) return this.finish('above_max')
    this.phase = 'climb'
    this.climbHeld = high
    this.pending = roundRate(Math.min(high * this.moveFactor, maxRate))
  }

  /**
   * The bracket's resolution near a rate.
   * @param {number} rate
   */
  resolutionAt(rate) {
    return this.options.resolutionAt?.(rate) ?? this.options.resolution
  }

  /**
   * While the bracket is confirmed, the steps its ends still need to be firm
   * if every one goes its end's way (at least 1); null in the other phases.
   * @returns {number | null}
   */
  stepsLeft() {
    if (this.phase !== 'confirm') return null
    const low = /** @type {number} */ (this.low)
    const high = /** @type {number} */ (this.high)
    return Math.max(1, this.stepsShort(low, this.lowEnds) + this.stepsShort(high, this.highEnds))
  }

  /**
   * @param {number} rate
   * @param {Set<number>} ends   the rates tried at that end
   */
  stepsShort(rate, ends) {
    const needed = this.options.repeats + ends.size - (ends.has(rate) ? 1 : 0)
    return Math.max(0, needed - this.stepsAt(rate).steps)
  }

  /** @param {number} rate */
  stepsAt(rate) {
    const at = this.trials.filter(t => t.rate === rate)
    return { held: at.filter(t => t.held).length, steps: at.length }
  }

  /** @param {SearchResult['verdict']} verdict */
  finish(verdict) {
    this.phase = 'done'
    this.verdict = verdict
    this.pending = null
  }

  /** @returns {SearchResult} */
  result() {
    const held = this.trials.filter(t => t.held).map(t => t.rate)
    const broken = this.trials.filter(t => !t.held).map(t => t.rate)
    const highestHeld = held.length ? Math.max(...held) : null
    const lowestBroken = broken.length ? Math.min(...broken) : null
    const verdict = /** @type {SearchResult['verdict']} */ (this.verdict ?? 'stopped')
    const common = { verdict, highestHeld, lowestBroken }
    if (verdict === 'above_max') {
      return {
        ...common,
        capacity: highestHeld,
        low: highestHeld,
        high: null,
        confidence: null,
        lowSteps: null,
        highSteps: null
      }
    }
    // no bracket, or one the search left when it went down again and never found a new one
    if (this.low === null || this.high === null || this.low >= this.high) {
      return { ...common, capacity: null, low: null, high: null, confidence: null, lowSteps: null, highSteps: null }
    }
    const lowSteps = this.stepsAt(this.low)
    const highSteps = this.stepsAt(this.high)
    // each rate confirmed as an end was a chance to stop on a wrong one: an
    // end's tail is counted once per rate confirmed there (a union bound)
    const tails =
      Math.max(1, this.lowEnds.size) * signTail(lowSteps.held, lowSteps.steps) +
      Math.max(1, this.highEnds.size) * signTail(highSteps.steps - highSteps.held, highSteps.steps)
    const confidence = 1 - tails
    return {
      ...common,
      // the middle of the bracket, on the scale the search moves on
      capacity: roundRate(Math.sqrt(this.low * this.high)),
      low: this.low,
      high: this.high,
      confidence: Math.max(0, confidence),
      lowSteps,
      highSteps
    }
  }
}

/**
 * P(X ≥ k) for X ~ Bin(n, ½): how often k or more of n steps go one way
 * by luck when each goes either way half the time.
 * @param {number} k
 * @param {number} n
 */
export function signTail(k, n) {
  if (n === 0) return 1
  let sum = 0
  let term = 0.5 ** n // C(n, 0) / 2^n
  for (let i = 0; i <= n; i++) {
    if (i >= k) sum += term
    term = (term * (n - i)) / (i + 1)
  }
  return Math.min(1, sum)
}

/**
 * Rates as a person would write them: three significant figures, whole
 * numbers from 100 up, so that the same rate comes out twice alike.
 * @param {number} rate
 */
export function roundRate(rate) {
  if (rate >= 100) {
    const step = 10 ** Math.max(0, Math.floor(Math.log10(rate)) - 2)
    return Math.round(rate / step) * step
  }
  return Number(rate.toPrecision(3))
}
