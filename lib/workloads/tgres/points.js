// What a write carries: the value of each series at each step, the slot a
// step falls in and the version that slot's values belong to, and the text
// of the arrays a statement sends.

// Versions wrap at the largest smallint (Tgres: `% 32767`).
const VERSIONS = 32767
// Every series is a sinusoid (as Tgres's blaster sends), its phase its number.
const RADIANS_PER_STEP = (2 * Math.PI) / 360

/**
 * The point of a series at a step (steps count from the epoch: data time of
 * step n is n × step). Rounded to thousandths, so that its text is short
 * and reads back as the same double.
 * @param {number} series   0-based
 * @param {number} step
 */
export function pointValue(series, step) {
  return Math.round((50 + 40 * Math.sin(step * RADIANS_PER_STEP + series)) * 1000) / 1000
}

/**
 * The slot of a step in a ring of `slots` (Tgres's rrd.SlotIndex).
 * @param {number} step
 * @param {number} slots
 */
export function slotOf(step, slots) {
  return step % slots
}

/**
 * Which pass of the ring a step belongs to (Tgres: latest_ms / (step_ms ×
 * size) % 32767). A slot's values whose version is not the one expected for
 * it are left from an earlier pass: a read ignores them, so that slots never
 * need clearing.
 * @param {number} step
 * @param {number} slots
 */
export function versionOf(step, slots) {
  return Math.floor(step / slots) % VERSIONS
}

/**
 * The versions a read expects, given the latest step written: the latest
 * one for slots up to the latest slot, the one before for slots after it
 * (written on the previous pass). Tgres turns -1 into 32767, a version that
 * is never written; this wraps to 32766.
 * @param {number} latestStep
 * @param {number} slots
 */
export function expectedVersions(latestStep, slots) {
  const latest = versionOf(latestStep, slots)
  return { latestSlot: slotOf(latestStep, slots), latest, previous: (latest + VERSIONS - 1) % VERSIONS }
}

/**
 * The array literal of the values of series first…last at a step.
 * @param {number} first   0-based series number
 * @param {number} count
 * @param {number} step
 */
export function valuesLiteral(first, count, step) {
  let text = '{'
  for (let k = 0; k < count; k++) text += (k === 0 ? '' : ',') + pointValue(first + k, step)
  return text + '}'
}

/**
 * '{v,v,…,v}': one value repeated.
 * @param {string | number} value
 * @param {number} count
 */
export function repeatedLiteral(value, count) {
  return '{' + `${value},`.repeat(count - 1) + value + '}'
}
