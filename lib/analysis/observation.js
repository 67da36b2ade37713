// The shape of one observation of observations.js, which every observer
// (lab-observers.js, cause-host.js, cause-checkpoints.js) writes, and the
// clock they read the samples by.

/**
 * @typedef {object} Observation
 * @property {number} from_s         seconds after the load began
 * @property {number | null} to_s    its end; null for a moment, or when it had not ended by the last sample
 * @property {string} kind           vacuum, vacuum_phase, checkpoint, xmin_holder, lock_wait, reconnects, failures,
 *   disk_full, action, concurrency, pause, host, cpu_contention, server_stopped, stall, connection_slots
 *   (docs/causes.md)
 * @property {string} label          what it was, in words
 */

/**
 * Seconds after the load began, of a sample's or an event's timestamp.
 * @typedef {(ts: string) => number} At
 */

export {}
