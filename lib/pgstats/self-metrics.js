// The collector's own health, following the Prometheus naming conventions.
import client from 'prom-client'

/**
 * @typedef {object} SelfMetrics
 * @property {client.Counter<string>} polls
 * @property {client.Counter<'query'>} errors
 * @property {client.Counter<string>} skipped
 * @property {client.Histogram<string>} duration
 * @property {client.Gauge<string>} lastSuccess
 */

/**
 * @param {client.Registry} registry
 * @param {readonly string[]} queryNames   error series zero-filled for each
 * @returns {SelfMetrics}
 */
export function registerSelfMetrics(registry, queryNames) {
  const errors = new client.Counter({
    name: 'pgloadgen_pgstats_poll_errors_total',
    help: 'Statistics statements that failed or timed out, by statement ("connect": connection attempts)',
    labelNames: ['query'],
    registers: [registry]
  })
  for (const query of queryNames) errors.inc({ query }, 0)
  return {
    polls: new client.Counter({
      name: 'pgloadgen_pgstats_polls_total',
      help: 'Polls of the PostgreSQL statistics done, successful or not',
      registers: [registry]
    }),
    errors,
    skipped: new client.Counter({
      name: 'pgloadgen_pgstats_polls_skipped_total',
      help: 'Polls skipped because the previous one was still running when they were due',
      registers: [registry]
    }),
    duration: new client.Histogram({
      name: 'pgloadgen_pgstats_poll_duration_seconds',
      help: 'Duration of a poll of the PostgreSQL statistics',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry]
    }),
    lastSuccess: new client.Gauge({
      name: 'pgloadgen_pgstats_last_success_timestamp_seconds',
      help: 'End of the last poll in which every statement succeeded, Unix time in seconds (0: none yet)',
      registers: [registry]
    })
  }
}
