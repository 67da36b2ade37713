// How one load is split into parts (instances on many machines, threads of
// one process), exactly: the parts together do what one generator would.
//
// Everything is dealt out round-robin over one global numbering: client k,
// and arrival k of an open-loop schedule, belong to part k mod parts. So
// integer shares add up to the total and differ by at most one, and the
// arrivals a part keeps are every parts-th arrival of the one schedule
// (lib/generator/pacer.js), whose union is that schedule itself.

/**
 * A part of a load: the index-th of parts, 0-based (index 2 of parts 3 is
 * the last of three).
 * @typedef {object} Share
 * @property {number} index
 * @property {number} parts
 */

/** The whole load: one part. @type {Readonly<Share>} */
export const WHOLE = Object.freeze({ index: 0, parts: 1 })

/**
 * Part index's share of an integer total: how many of the items 0 … total-1
 * have item mod parts = index. The shares of 0 … parts-1 add up to total
 * and differ by at most one; the first total mod parts get the extra one.
 * @param {number} total   a non-negative integer (clients, requests)
 * @param {number} index
 * @param {number} parts
 */
export function shareOf(total, index, parts) {
  return Math.floor(total / parts) + (index < total % parts ? 1 : 0)
}

/**
 * shareOf for a Share.
 * @param {number} total
 * @param {Share} share
 */
export function shareOfTotal(total, share) {
  return shareOf(total, share.index, share.parts)
}

/**
 * A part's share of a rate: its arrivals are every parts-th of the whole
 * schedule, so on average rate / parts of them a second.
 * @param {number} rate
 * @param {Share} share
 */
export function rateShare(rate, share) {
  return rate / share.parts
}

/**
 * A part of a part (thread t of instance i), as one part of the whole: the
 * inner part takes every inner.parts-th item of the outer part's, and those
 * are items outer.index + outer.parts × (inner.index + inner.parts × m).
 * So shareOf(shareOf(T, outer), inner) = shareOf(T, nestShare(outer, inner)).
 * @param {Share} outer
 * @param {Share} inner
 * @returns {Share}
 */
export function nestShare(outer, inner) {
  return { index: outer.index + outer.parts * inner.index, parts: outer.parts * inner.parts }
}

/**
 * Whether share is a valid part: integers, 0 ≤ index < parts.
 * @param {Share} share
 */
export function isShare(share) {
  return (
    Number.isSafeInteger(share.index) &&
    Number.isSafeInteger(share.parts) &&
    share.parts >= 1 &&
    share.index >= 0 &&
    share.index < share.parts
  )
}

/**
 * "I/N" as --instance writes it, 0-based like Kubernetes' JOB_COMPLETION_INDEX.
 * @param {Share} share
 */
export function formatShare(share) {
  return `${share.index}/${share.parts}`
}
