import { count, ms, plural, rate } from './figure-format.js'

// The end table's lines of --stages and --warmup: the stages the load
// followed, and what the warm-up did, apart from the table above it, whose
// figures leave the warm-up out.

/**
 * @param {Record<string, any>} summary
 * @param {import('./colours.js').Colours} colours
 * @returns {string[]}
 */
export function loadOverTimeLines(summary, colours) {
  const lines = []
  /** @type {Array<{ seconds: number, target: number }> | undefined} */
  const stages = summary.stages
  if (Array.isArray(stages) && stages.length > 0) {
    const unit = summary.mode === 'open' ? 'requests/s' : 'clients'
    lines.push(`stages (${unit}): ${stages.map(stage => `${stage.seconds} s → ${stage.target}`).join(', ')}`)
  }
  const warmup = summary.warmup
  if (warmup && typeof warmup === 'object') {
    const failed = warmup.failed > 0 ? colours.yellow(`${count(warmup.failed)} failed`) : '0 failed'
    lines.push(
      colours.dim(
        `warm-up (left out above): ${warmup.seconds} s, ${plural(warmup.done, 'request')} (${rate(warmup.throughput)}/s), p50 ${ms(warmup.latency_us?.p50)} ms, p99 ${ms(warmup.latency_us?.p99)} ms, ${failed}`
      )
    )
  }
  return lines.length > 0 ? [...lines, ''] : []
}
