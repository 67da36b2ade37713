// COPY FROM STDIN through our wire client against node-postgres with
// pg-copy-streams, the library a project would otherwise use: the same
// pre-built chunks of text rows (TSBS cpu rows) into the same unlogged
// table, emptied before each run, rounds alternating A B, B A. Both run in
// this process, so CPU is process CPU over the copy.
import { performance } from 'node:perf_hooks'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { from as copyFromStream } from 'pg-copy-streams'
import { WireConnection, copyTextRow } from '../lib/wire/wire-connection.js'
import { alternated, spread } from './stats.js'
import { checkpointer } from './checkpoint.js'
// the ten usage columns of a TSBS cpu row
import { FIELDS as COLUMNS } from '../lib/workloads/tsbs-cpu/schema.js'

const TABLE = 'pgloadgen_bench_copy'
const COPY = `COPY ${TABLE} (time, tags_id, ${COLUMNS.join(', ')}) FROM STDIN`
const CHUNK_BYTES = 65536

/**
 * @param {{ url: string, rows: number, rounds: number, log: import('../lib/log.js').Logger }} options
 */
export async function compareCopy({ url, rows, rounds, log }) {
  const chunks = buildChunks(rows)
  const bytes = chunks.reduce((n, c) => n + c.length, 0)
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(
    `DROP TABLE IF EXISTS ${TABLE}; CREATE UNLOGGED TABLE ${TABLE} (time timestamptz, tags_id int, ` +
      `${COLUMNS.map(c => `${c} double precision`).join(', ')})`
  )
  const checkpoint = checkpointer(admin, log)
  /** @param {() => Promise<number>} copy */
  const measure = async copy => {
    await admin.query(`TRUNCATE ${TABLE}`)
    await checkpoint.run()
    const cpu = process.cpuUsage()
    const started = performance.now()
    const copied = await copy()
    const seconds = (performance.now() - started) / 1000
    const used = process.cpuUsage(cpu)
    if (copied !== rows) throw new Error(`copied ${copied} rows, expected ${rows}`)
    return { rows_per_s: rows / seconds, cpu_us_per_row: (used.user + used.system) / rows }
  }
  const ours = async () => {
    const connection = await WireConnection.connect(url, { applicationName: 'pgloadgen-bench-copy' })
    try {
      return (await connection.copyFrom(COPY, chunks)).rowCount
    } finally {
      await connection.close()
    }
  }
  const library = async () => {
    const client = new pg.Client({ connectionString: url, application_name: 'pgloadgen-bench-copy' })
    await client.connect()
    try {
      const stream = client.query(copyFromStream(COPY))
      await pipeline(Readable.from(chunks), stream)
      return Number(stream.rowCount)
    } finally {
      await client.end()
    }
  }
  const pairs = []
  try {
    await measure(ours)
    await measure(library)
    for (let round = 1; round <= rounds; round++) {
      const [own, lib] = await alternated(
        round,
        () => measure(ours),
        () => measure(library)
      )
      log.info(
        `copy round ${round}/${rounds}: ours ${Math.round(own.rows_per_s)} rows/s, ` +
          `pg-copy-streams ${Math.round(lib.rows_per_s)} rows/s`
      )
      pairs.push({ own, lib })
    }
  } finally {
    await admin.query(`DROP TABLE IF EXISTS ${TABLE}`)
    await admin.end()
  }
  return {
    rows,
    bytes,
    rounds,
    checkpoints: checkpoint.used,
    ratio: spread(pairs.map(p => p.own.rows_per_s / p.lib.rows_per_s)),
    ours: {
      rows_per_s: spread(pairs.map(p => p.own.rows_per_s)),
      cpu_us_per_row: spread(pairs.map(p => p.own.cpu_us_per_row))
    },
    pg_copy_streams: {
      rows_per_s: spread(pairs.map(p => p.lib.rows_per_s)),
      cpu_us_per_row: spread(pairs.map(p => p.lib.cpu_us_per_row))
    }
  }
}

/**
 * Rows of the Time Series Benchmark Suite's cpu shape (a time, a host, ten
 * usage figures) in COPY text, in chunks of about CHUNK_BYTES.
 * @param {number} rows
 */
function buildChunks(rows) {
  const chunks = []
  let text = ''
  const start = Date.parse('2026-01-01T00:00:00Z')
  for (let i = 0; i < rows; i++) {
    const usages = COLUMNS.map(() => Math.round(Math.random() * 10000) / 100)
    text += copyTextRow([new Date(start + Math.floor(i / 100) * 10000).toISOString(), 1 + (i % 100), ...usages])
    if (text.length >= CHUNK_BYTES) {
      chunks.push(Buffer.from(text))
      text = ''
    }
  }
  if (text !== '') chunks.push(Buffer.from(text))
  return chunks
}
