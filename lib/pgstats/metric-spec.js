// What a spec of a server metric is, and what the spec tables share to
// build one: the gauge and counter builders and the labels of a table's and
// an index's series. metrics.js registers specs; metric-specs.js lists them.

/**
 * @typedef {object} MetricSpec
 * @property {string} name
 * @property {string} help
 * @property {'gauge' | 'counter'} type
 * @property {string[]} labels
 * @property {string[]} sections   statements whose rows feed the metric
 * @property {string} column
 * @property {string} [onlyWhile]   series exist only while this is so (none otherwise, on every version)
 */

/** The labels of a table's series. */
export const TABLE = ['datname', 'schemaname', 'relname']
/** The labels of an index's series. */
export const INDEX = ['datname', 'schemaname', 'relname', 'indexrelname']

/**
 * @param {string} name @param {string} help @param {string[]} labels @param {string[]} sections @param {string} column
 * @returns {MetricSpec}
 */
export function gauge(name, help, labels, sections, column) {
  return { name, help, type: 'gauge', labels, sections, column }
}

/**
 * @param {string} name @param {string} help @param {string[]} labels @param {string[]} sections @param {string} column
 * @returns {MetricSpec}
 */
export function counter(name, help, labels, sections, column) {
  return { name, help, type: 'counter', labels, sections, column }
}
