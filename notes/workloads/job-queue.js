// A job queue in a table: producers insert jobs, workers take the oldest
// one with SELECT … FOR UPDATE SKIP LOCKED and delete it when done. Every
// job is a row that lives for seconds and leaves a dead tuple behind, in
// the table and in its index; the workers' scans start at the head of the
// index, where the dead entries pile up until vacuum removes them. It is
// the classic table that bloats while autovacuum falls behind.
//
//   pgloadgen run --workload notes/workloads/job-queue.js -c 8 -d 60
//   pgloadgen run --workload notes/workloads/job-queue.js --payload-bytes 2000 --queues 4
import { randomBytes } from 'node:crypto'

const ENQUEUE = 'INSERT INTO jobs (queue, payload) VALUES ($1, $2)'
const TAKE = `SELECT id FROM jobs
  WHERE queue = $1 AND run_at <= now()
  ORDER BY run_at, id
  FOR UPDATE SKIP LOCKED
  LIMIT 1`
const FINISH = 'DELETE FROM jobs WHERE id = $1'
const PEEK = 'SELECT id, run_at FROM jobs WHERE queue = $1 ORDER BY run_at, id LIMIT 1'

/** @type {import('../../lib/workloads/contract.js').WorkloadModule} */
export default {
  name: 'job-queue',
  description: 'a job queue: enqueue, dequeue with FOR UPDATE SKIP LOCKED then DELETE, peek at the head',
  table: 'jobs',
  schema: `
    CREATE TABLE IF NOT EXISTS jobs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      queue text NOT NULL,
      payload text NOT NULL,
      run_at timestamptz NOT NULL DEFAULT now(),
      enqueued_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS jobs_queue_run_at_idx ON jobs (queue, run_at, id);
  `,
  drop: 'DROP TABLE IF EXISTS jobs;',
  // Slightly more jobs in than out, so that the queue is never empty for long.
  types: [
    { name: 'enqueue', weight: 50 },
    { name: 'dequeue', weight: 48 },
    { name: 'peek', weight: 2 }
  ],
  fill: 'enqueue=1',

  // Its own flags of pgloadgen run, checked before anything connects.
  options: {
    'payload-bytes': { type: 'integer', default: 100, min: 1, max: 1000000, describe: "size of each job's payload" },
    queues: { type: 'integer', default: 1, min: 1, max: 10000, describe: 'named queues the jobs are spread over' }
  },

  configure({ options }) {
    return { payloadBytes: options.payloadBytes, queues: options.queues }
  },

  initClient(ctx) {
    const { payloadBytes, queues } = /** @type {{ payloadBytes: number, queues: number }} */ (ctx.config)
    // One payload per client, reused: making random text is not what is measured.
    ctx.state.payload = randomBytes(Math.ceil((payloadBytes * 3) / 4))
      .toString('base64')
      .slice(0, payloadBytes)
    ctx.state.queue = () => `queue_${Math.floor(Math.random() * queues)}`
  },

  requests: {
    async enqueue(db, ctx) {
      await db.query(ENQUEUE, [ctx.state.queue(), ctx.state.payload])
    },

    // Takes the oldest job nobody else holds, and finishes it: false when
    // the queue had none ready.
    async dequeue(db, ctx) {
      return db.transaction(async tx => {
        const taken = await tx.query(TAKE, [ctx.state.queue()])
        if (taken.rowCount === 0) return false
        await tx.query(FINISH, [taken.first])
        return true
      })
    },

    async peek(db, ctx) {
      const head = await db.query(PEEK, [ctx.state.queue()])
      return head.rowCount === 1
    }
  }
}
