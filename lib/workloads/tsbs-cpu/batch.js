import { BinaryRows, COPY_BINARY_SQL, COPY_TEXT_SQL, TextRows } from './copy-rows.js'
import { InsertRows } from './insert-rows.js'
import { CPU_TABLE, FIELDS } from './schema.js'

// insert_batch: the next --batch-size rows of the shared stream, sent by
// the chosen method in one statement; once the server acknowledges them,
// they count as written (rows, and ten points a row).
//
// On the simulated clock each client makes its next batch while the server
// works through the one just sent (once the COPY data is all with the
// socket, or the INSERT sent), as TSBS's loader reads its next batch while
// its workers write: the server does not wait for the client between
// batches. A batch made and never sent (the run ended) is never counted.

/** @typedef {import('./config.js').TsbsConfig} TsbsConfig */
/** @typedef {import('./setup.js').Shared} Shared */
/** @typedef {BinaryRows | TextRows | InsertRows} Sink */
/** @typedef {{ sink: Sink, keys: BatchKeys, rows: number, newestEpoch: number }} Prepared */

// The (time, tags_id) of each row of a batch: a point is sent once, so they
// name the batch's rows in the table. Kept so that a batch whose
// connection broke before the acknowledgement can be looked for at exit.
class BatchKeys {
  /** @param {number} size */
  constructor(size) {
    this.times = new Float64Array(size)
    this.tags = new Int32Array(size)
    this.count = 0
  }

  /** A statement that counts the rows of the batch the table holds. */
  probe() {
    return {
      text: `SELECT count(*) AS n FROM ${CPU_TABLE} WHERE (time, tags_id) IN (SELECT to_timestamp(0) + k.ms * interval '1 millisecond', k.tags_id FROM unnest($1::float8[], $2::int[]) AS k(ms, tags_id))`,
      params: [Array.from(this.times.subarray(0, this.count)), Array.from(this.tags.subarray(0, this.count))]
    }
  }
}

/**
 * @param {TsbsConfig} config
 * @returns {Sink}
 */
function newSink(config) {
  switch (config.insertMethod) {
    case 'copy':
      return new TextRows()
    case 'insert':
      return new InsertRows(config.batchSize)
    default:
      return new BinaryRows()
  }
}

/**
 * Takes the next rows of the stream into a sink, noting their keys.
 * @param {import('./stream.js').CpuStream} stream
 * @param {Sink} sink
 * @param {BatchKeys} keys
 * @param {number} batchSize
 * @returns {Prepared}
 */
function prepare(stream, sink, keys, batchSize) {
  sink.begin()
  keys.count = 0
  const { times, tags } = keys
  const { rows, newestEpoch } = stream.take(batchSize, {
    row(timeMs, tagsId, values) {
      times[keys.count] = timeMs
      tags[keys.count++] = tagsId
      sink.row(timeMs, tagsId, values)
    }
  })
  return { sink, keys, rows, newestEpoch }
}

/**
 * The chunks, then the next batch made, before the COPY ends.
 * @param {Buffer[]} chunks
 * @param {(() => void) | null} then
 */
function* chunksThen(chunks, then) {
  yield* chunks
  then?.()
}

/**
 * @param {import('../db.js').Db} db
 * @param {import('../contract.js').ClientContext} ctx
 */
export async function insertBatch(db, ctx) {
  const config = /** @type {TsbsConfig} */ (ctx.config)
  const { stream } = /** @type {Shared} */ (ctx.shared)
  const state = ctx.state
  /** @type {[Sink, Sink]} */
  const sinks = (state.sinks ??= [newSink(config), newSink(config)])
  /** @type {[BatchKeys, BatchKeys]} */
  const keys = (state.keys ??= [new BatchKeys(config.batchSize), new BatchKeys(config.batchSize)])
  /** @type {Prepared} */
  const batch = state.prepared ?? prepare(stream, sinks[0], keys[0], config.batchSize)
  state.prepared = null
  // the real clock has nothing due yet
  if (batch.rows === 0) return false
  const { sink, rows } = batch
  const next = sink === sinks[0] ? 1 : 0
  // on the real clock a batch is what is due when it goes, not earlier
  const makeNext = stream.real
    ? null
    : () => {
        state.prepared = prepare(stream, sinks[next], keys[next], config.batchSize)
      }
  let stored
  try {
    if (sink instanceof InsertRows) {
      const sent = db.query(sink.statement(), sink.params)
      makeNext?.()
      stored = (await sent).rowCount
    } else {
      stored = (
        await db.copyFrom(
          sink instanceof BinaryRows ? COPY_BINARY_SQL : COPY_TEXT_SQL,
          chunksThen(sink.end(), makeNext)
        )
      ).rowCount
    }
  } catch (err) {
    sink.discard()
    ctx.writeFailed(err, rows, () => batch.keys.probe())
    throw err
  }
  stream.written(batch.newestEpoch)
  ctx.written(stored, stored * FIELDS.length)
  // a failed request, counted by the generator as such: not the program's error
  if (stored !== rows) throw new Error(`the server stored ${stored} of the batch's ${rows} rows`)
}
