import { esc, fmtNumber, fmtRatio, fmtTime, fmtUs } from './html.js'

// The anti-wraparound autovacuums of a run's table, the failsafe, and what
// each vacuum cost the load (summary.json's `wraparound`,
// lib/recorder/wraparound.js): one row a vacuum, throughput and p99 while
// it ran against the seconds outside every one of them.

const LEAD =
  'Each anti-wraparound autovacuum of the table, from the server log (its end and elapsed time); the failsafe from its WARNING. "During": the seconds of load that overlap the vacuum; "quiet": the seconds that overlap neither one nor an age-xids burst (the load alone), which the ratios are taken against; "outside": every second that overlaps no vacuum. A vacuum shorter than a second has one or two samples: its figures are those seconds\'.'

/**
 * @param {Record<string, any> | null | undefined} record   a run's summary.wraparound
 * @param {string} heading   HTML
 */
function section(record, heading) {
  if (!record || !Array.isArray(record.vacuums)) return ''
  const outside = record.outside ?? {}
  const rows = record.vacuums
    .map(
      (/** @type {Record<string, any>} */ v, /** @type {number} */ i) =>
        `<tr${v.failsafe ? ' class="bad"' : ''}><td>${i + 1}</td><td>${esc(fmtTime(v.start))}</td><td>${fmtNumber(v.duration_s, 2)} s</td><td>${fmtNumber(v.index_scans)}</td><td>${v.failsafe ? 'tripped' : '—'}</td><td>${fmtNumber(v.during.samples)}</td><td>${fmtNumber(v.during.throughput)}</td><td>${fmtRatio(v.throughput_ratio)}</td><td>${fmtUs(v.during.p99_us)}</td><td>${fmtRatio(v.p99_ratio)}</td><td>${fmtUs(v.during.p99_max_us)}</td></tr>`
    )
    .join('\n')
  const failsafes = (record.failsafes ?? [])
    .map(
      (/** @type {Record<string, any>} */ f) =>
        `${esc(f.relation)} at ${esc(fmtTime(f.ts))}, after ${fmtNumber(f.index_scans)} index scans`
    )
    .join('; ')
  const byDatabase = () =>
    Object.entries(record.other_failsafes.by_database)
      .map(([db, n]) => `${esc(db)} ${fmtNumber(/** @type {number} */ (n))}`)
      .join(', ')
  const others = record.other_failsafes?.count
    ? ` Other tables (the catalogs of every database age too): ${fmtNumber(record.other_failsafes.count)} failsafes (${byDatabase()}).`
    : ''
  return `${heading}
<p class="lead">${esc(LEAD)}</p>
<p class="lead">${fmtNumber(record.anti_wraparound_vacuums)} anti-wraparound autovacuums of ${esc(record.table)};
failsafe of the table: ${failsafes || 'none'}.${others}</p>
<table class="data"><thead><tr><th>#</th><th>start</th><th>took</th><th>index scans</th><th>failsafe</th>
<th>samples</th><th>requests/s during</th><th>during / quiet</th><th>p99 during</th><th>during / quiet</th>
<th>p99 max</th></tr></thead>
<tbody>
${rows}
${[
  ['quiet (the load alone)', record.quiet],
  ['outside every vacuum', outside]
]
  .filter(([, f]) => f)
  .map(
    ([label, f]) =>
      `<tr><td colspan="5">${esc(label)}</td><td>${fmtNumber(f.samples)}</td><td>${fmtNumber(f.throughput)}</td><td></td><td>${fmtUs(f.p99_us)}</td><td></td><td>${fmtUs(f.p99_max_us)}</td></tr>`
  )
  .join('\n')}
</tbody></table>`
}

/** @param {import('../results/read.js').RunData} run */
export function runWraparoundSection(run) {
  return section(run.summary?.wraparound, '<h2 id="wraparound">Anti-wraparound vacuums and the failsafe</h2>')
}

/** @param {import('../results/read.js').ExperimentData} experiment */
export function experimentWraparoundSection(experiment) {
  return experiment.variants
    .flatMap(variant =>
      variant.repetitions.map((run, r) =>
        section(
          run.summary?.wraparound,
          `<h3 id="wraparound-${esc(variant.name)}-${r + 1}" style="margin-top:16px">Anti-wraparound vacuums and the failsafe: ${esc(variant.name)}, repetition ${r + 1}</h3>`
        )
      )
    )
    .join('\n')
}

/**
 * The experiment's summary.json with each variant's repetitions' records
 * (wraparound: one per repetition, null where a run had none).
 * @template {{ variants: { name: string }[] }} S
 * @param {S} summary
 * @param {import('../results/read.js').ExperimentData} experiment
 * @returns {S}
 */
export function withWraparound(summary, experiment) {
  if (!experiment.variants.some(v => v.repetitions.some(run => run.summary?.wraparound))) return summary
  return {
    ...summary,
    variants: summary.variants.map((variant, i) => ({
      ...variant,
      wraparound: experiment.variants[i].repetitions.map(run => run.summary?.wraparound ?? null)
    }))
  }
}
