// The figures a plan's expected effect may name (a plan's `expect:`), each
// read per repetition from an experiment's summary.json (report/phases.js):
// the ratios around the action, the whole-run figures, what the action's
// vacuum cost (vacuum_cost) and the anti-wraparound record (wraparound).
// A figure a repetition did not record is null, never 0. workload.NAME is
// one of the workload's own statistics, at the end of each run.

/**
 * @typedef {object} AnswerFigure
 * @property {string} label    what it is, in words
 * @property {'ratio' | 'seconds' | 'bytes' | 'pages' | 'count' | 'per_s' | 'us'} unit
 * @property {(variant: Record<string, any>, r: number) => unknown} pick  the r-th repetition's value
 */

/**
 * @param {string} key
 * @returns {AnswerFigure['pick']}
 */
const around = key => (variant, r) => variant.repetitions?.[r]?.[key]

/**
 * @param {string} key
 * @returns {AnswerFigure['pick']}
 */
const whole = key => (variant, r) => variant.repetitions?.[r]?.whole_run?.[key]

/**
 * @param {(cost: Record<string, any>) => unknown} of
 * @returns {AnswerFigure['pick']}
 */
const vacuum = of => (variant, r) => {
  const cost = variant.vacuum_cost?.repetitions?.[r]?.cost
  return cost ? of(cost) : null
}

/**
 * @param {(record: Record<string, any>) => unknown} of
 * @returns {AnswerFigure['pick']}
 */
const wraparound = of => (variant, r) => {
  const record = variant.wraparound?.[r]
  return record && !record.error ? of(record) : null
}

/** @type {Readonly<Record<string, AnswerFigure>>} */
export const ANSWER_FIGURES = Object.freeze({
  degradation_ratio: {
    label: 'throughput during / before the action',
    unit: 'ratio',
    pick: around('degradation_ratio')
  },
  p99_ratio: { label: 'p99 latency during / before the action', unit: 'ratio', pick: around('p99_ratio') },
  action_duration_s: {
    label: 'the time the action took',
    unit: 'seconds',
    pick: (variant, r) => variant.repetitions?.[r]?.action?.duration_s
  },
  requests_per_s: { label: 'throughput over the whole run', unit: 'per_s', pick: whole('requests_per_s') },
  rows_per_s: { label: 'rows written a second', unit: 'per_s', pick: whole('rows_per_s') },
  points_per_s: { label: 'points written a second', unit: 'per_s', pick: whole('points_per_s') },
  latency_p99_us: { label: 'p99 latency over the whole run', unit: 'us', pick: whole('latency_p99_us') },
  dead_tuples_peak: { label: 'the peak of dead tuples', unit: 'count', pick: whole('dead_tuples_peak') },
  table_bytes_end: { label: "the table's size at the end", unit: 'bytes', pick: whole('table_bytes_end') },
  table_bytes_peak: { label: "the table's largest size", unit: 'bytes', pick: whole('table_bytes_peak') },
  xid_age_end: { label: "the table's xid age at the end", unit: 'count', pick: whole('xid_age_end') },
  autovacuum_runs: { label: 'autovacuums of the table', unit: 'count', pick: whole('autovacuum_runs') },
  capacity_per_s: {
    label: 'the capacity found',
    unit: 'per_s',
    pick: (variant, r) => variant.repetitions?.[r]?.capacity?.capacity_per_s
  },
  vacuum_duration_s: {
    label: "the action's vacuum time",
    unit: 'seconds',
    pick: (variant, r) => variant.vacuum_cost?.repetitions?.[r]?.duration_s
  },
  vacuum_pages_scanned: { label: 'heap pages the vacuum read', unit: 'pages', pick: vacuum(c => c.pages_scanned) },
  vacuum_pages_frozen: { label: 'pages the vacuum froze', unit: 'pages', pick: vacuum(c => c.pages_frozen) },
  vacuum_index_scans: {
    label: "the vacuum's passes over the indexes",
    unit: 'count',
    pick: vacuum(c => c.index_scans)
  },
  vacuum_wal_bytes: { label: 'WAL the vacuum wrote', unit: 'bytes', pick: vacuum(c => c.wal_bytes) },
  vacuum_full_page_images: {
    label: "full-page images in the vacuum's WAL",
    unit: 'count',
    pick: vacuum(c => c.wal_fpi)
  },
  vacuum_reads: { label: 'blocks the vacuum read (pg_stat_io)', unit: 'pages', pick: vacuum(c => c.io?.reads) },
  all_frozen_before: {
    label: 'pages all-frozen before the vacuum (frozen early)',
    unit: 'pages',
    pick: vacuum(c => c.vm_before?.all_frozen)
  },
  all_visible_before: {
    label: 'pages all-visible before the vacuum',
    unit: 'pages',
    pick: vacuum(c => c.vm_before?.all_visible)
  },
  anti_wraparound_vacuums: {
    label: 'anti-wraparound autovacuums of the table',
    unit: 'count',
    pick: wraparound(w => w.anti_wraparound_vacuums)
  },
  failsafes: { label: "failsafes of the table's vacuums", unit: 'count', pick: wraparound(w => w.failsafes?.length) }
})

export const FIGURE_NAMES = Object.freeze(Object.keys(ANSWER_FIGURES))

// workload.NAME: a statistic of the workload's own (whole_run.workload), its value in a run's last sample
const WORKLOAD = /^workload\.([A-Za-z_][A-Za-z0-9_]*)$/

/**
 * Whether a figure is known: a name of ANSWER_FIGURES, or workload.NAME.
 * @param {string} figure
 */
export function isFigure(figure) {
  return FIGURE_NAMES.includes(figure) || WORKLOAD.test(figure)
}

/**
 * @param {string} figure
 * @returns {AnswerFigure | null}
 */
export function figureOf(figure) {
  const statistic = WORKLOAD.exec(figure)?.[1]
  if (statistic === undefined) return ANSWER_FIGURES[figure] ?? null
  return {
    label: `the workload's ${statistic.replace(/^pgloadgen_workload_/, '').replace(/_/g, ' ')} at the end`,
    unit: 'count',
    pick: (variant, r) => variant.repetitions?.[r]?.whole_run?.workload?.[statistic]?.last
  }
}

/**
 * A figure's value in each repetition of a variant that has it.
 * @param {string} figure
 * @param {Record<string, any>} variant  a variant of summary.json
 * @returns {number[]}
 */
export function figureValues(figure, variant) {
  const pick = figureOf(figure)?.pick
  if (!pick) return []
  /** @type {number[]} */
  const values = []
  for (let r = 0; r < (variant.repetitions?.length ?? 0); r++) {
    const value = pick(variant, r)
    if (typeof value === 'number' && Number.isFinite(value)) values.push(value)
  }
  return values
}
