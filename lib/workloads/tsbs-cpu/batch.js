import { BinaryRows, COPY_BINARY_SQL, COPY_TEXT_SQL, TextRows } from './copy-rows.js'
import { InsertRows } from './insert-rows.js'
import { FIELDS } from './schema.js'

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
/** @typedef {{ sink: Sink, rows: number, newestEpoch: number }} Prepared */

/**
 * @param {TsbsConfig} config
 * @returns {Sink}
 */
function newSink (config) {
  switch (config.insertMethod) {
    case 'copy': return new TextRows()
    case 'insert': return new InsertRows(config.batchSize)
    default: return new BinaryRows()
  }
}

/**
 * Takes the next rows of the stream into a sink.
 * @param {import('./stream.js').CpuStream} stream
 * @param {Sink} sink
 * @param {number} batchSize
 * @returns {Prepared}
 */
function prepare (stream, sink, batchSize) {
  sink.begin()
  const { rows, newestEpoch } = stream.take(batchSize, sink)
  return { sink, rows, newestEpoch }
}

/**
 * The chunks, then the next batch made, before the COPY ends.
 * @param {Buffer[]} chunks
 * @param {(() => void) | null} then
 */
function * chunksThen (chunks, then) {
  yield * chunks
  then?.()
}

/**
 * @param {import('../db.js').Db} db
 * @param {import('../contract.js').ClientContext} ctx
 */
export async function insertBatch (db, ctx) {
  const config = /** @type {TsbsConfig} */ (ctx.config)
  const { stream } = /** @type {Shared} */ (ctx.shared)
  const state = ctx.state
  /** @type {[Sink, Sink]} */
  const sinks = state.sinks ??= [newSink(config), newSink(config)]
  /** @type {Prepared} */
  const batch = state.prepared ?? prepare(stream, sinks[0], config.batchSize)
  state.prepared = null
  // the real clock has nothing due yet
  if (batch.rows === 0) return false
  const { sink, rows } = batch
  const other = sink === sinks[0] ? sinks[1] : sinks[0]
  // on the real clock a batch is what is due when it goes, not earlier
  const makeNext = stream.real ? null : () => { state.prepared = prepare(stream, other, config.batchSize) }
  let stored
  try {
    if (sink instanceof InsertRows) {
      const sent = db.query(sink.statement(), sink.params)
      makeNext?.()
      stored = (await sent).rowCount
    } else {
      stored = (await db.copyFrom(sink instanceof BinaryRows ? COPY_BINARY_SQL : COPY_TEXT_SQL, chunksThen(sink.end(), makeNext))).rowCount
    }
  } catch (err) {
    sink.discard()
    throw err
  }
  stream.written(batch.newestEpoch)
  ctx.written(stored, stored * FIELDS.length)
  if (stored !== rows) throw new Error(`the server stored ${stored} of the batch's ${rows} rows`)
}
