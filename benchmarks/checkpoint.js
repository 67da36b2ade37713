// The CHECKPOINT the bench runs before every timed run of either side (the
// manta, threads, copy and ingest parts). Without it, a run catches the
// burst of full-page writes that follows a checkpoint (the lab profile
// checkpoints every 30 s, and after every 1 GB of WAL: 8 to 14 s at the
// bench's rates) at a different moment of its 15 s, and a pair of runs, as
// long as that cycle, can favour the same side several rounds in a row.
// The bench's own server (notes/postgres/bench.conf) has room for a run's
// WAL, so that its only checkpoints are these.
//
// CHECKPOINT needs a superuser or, from PostgreSQL 15 on, the pg_checkpoint
// role. A server given by URL with a plain role still gets its comparison,
// without checkpoints, and the result says so.

const INSUFFICIENT_PRIVILEGE = '42501'

/**
 * @typedef {object} Checkpointer
 * @property {() => Promise<void>} run  a CHECKPOINT now, unless the server refused one before
 * @property {boolean} used  false once the server refused
 * @property {string | null} refusal  the server's words when it refused
 */

/**
 * @param {{ query: (sql: string) => Promise<unknown> }} client  a connection of the bench's own
 * @param {import('../lib/log.js').Logger} log
 * @returns {Checkpointer}
 */
export function checkpointer(client, log) {
  /** @type {Checkpointer} */
  const self = {
    used: true,
    refusal: null,
    async run() {
      if (!self.used) return
      try {
        await client.query('CHECKPOINT')
      } catch (err) {
        if (/** @type {{ code?: string }} */ (err)?.code !== INSUFFICIENT_PRIVILEGE) throw err
        self.used = false
        self.refusal = err instanceof Error ? err.message : String(err)
        log.warn(
          `bench: the server refused CHECKPOINT (${self.refusal}); the runs go without one, ` +
            `and their figures are noisier (a superuser or the pg_checkpoint role allows it)`
        )
      }
    }
  }
  return self
}

/**
 * How the timed runs began, for the printed result.
 * @param {boolean} used
 */
export function checkpointNote(used) {
  return used ? 'a CHECKPOINT before every run of either side' : 'no CHECKPOINT before the runs (the server refused it)'
}
