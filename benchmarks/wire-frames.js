// npm run bench -- wire [--rounds N] [--seconds S] [--json]: the wire
// client's frame reader and message writer alone, without a server or a
// socket. The reader is fed a recorded-like stream of a prepared
// statement's replies (BindComplete, DataRow, CommandComplete,
// ReadyForQuery) in 64 KiB chunks, as the socket reads them, and cuts it
// into messages; the writer builds Bind, Execute and Sync for a statement
// of two parameters, as the hot path does, a batch of them a write.
// Each round runs for a fixed time; the figures are the rounds' mean
// messages a second with a 95 % bootstrap interval, and their spread.
import os from 'node:os'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { FrameReader } from '../lib/wire/frame-reader.js'
import { MessageWriter } from '../lib/wire/writer.js'
import { writeExtended } from '../lib/wire/frontend-messages.js'
import { tagRowCount, textValue } from '../lib/wire/backend-messages.js'
import { bootstrapMean } from '../lib/results/bootstrap-interval.js'
import { spread } from './stats.js'

const CHUNK = 65536
const REPLIES = 20000
// a write of the hot path: a pipelined batch, or one request alone
const BATCH = 16

/**
 * A server's replies to `count` runs of a prepared statement returning one
 * row of two columns: BindComplete, DataRow, CommandComplete, ReadyForQuery.
 * @param {number} count
 */
export function replyStream(count) {
  const w = new MessageWriter(count * 64)
  for (let i = 0; i < count; i++) {
    w.end(w.begin(0x32)) // 2 BindComplete
    const row = w.begin(0x44) // D DataRow
    w.int16(2)
    w.param(100000 + i)
    w.param('some text of a row')
    w.end(row)
    const tag = w.begin(0x43) // C CommandComplete
    w.cstring('SELECT 1')
    w.end(tag)
    const ready = w.begin(0x5a) // Z ReadyForQuery
    w.byte(0x49)
    w.end(ready)
  }
  return w.take()
}

/**
 * Messages the frame reader cuts a second, for `seconds`: each message
 * handled as the connection does the common ones (the first value of a
 * row, a tag's count).
 * @param {Buffer} stream
 * @param {number} seconds
 */
export function readRate(stream, seconds) {
  let messages = 0
  let checksum = 0
  const reader = new FrameReader({
    handle(type, buf, start, end) {
      messages++
      if (type === 0x44) checksum += textValue(buf, start + 6, start + 6 + buf.readInt32BE(start + 2)).length
      else if (type === 0x43) checksum += tagRowCount(buf, start, end - 1)
    }
  })
  // a socket's read buffer, reused read after read
  const readBuffer = Buffer.allocUnsafe(CHUNK)
  const started = performance.now()
  let elapsed
  do {
    for (let at = 0; at < stream.length; at += CHUNK) {
      const n = stream.copy(readBuffer, 0, at, Math.min(at + CHUNK, stream.length))
      reader.push(readBuffer, n)
    }
    elapsed = performance.now() - started
  } while (elapsed < seconds * 1000)
  if (checksum === 0) throw new Error('nothing decoded')
  return messages / (elapsed / 1000)
}

/**
 * Requests (Bind, Execute, Sync) the writer builds a second, for `seconds`,
 * BATCH to a write.
 * @param {number} seconds
 */
export function writeRate(seconds) {
  const w = new MessageWriter()
  let requests = 0
  let bytes = 0
  const started = performance.now()
  let elapsed
  do {
    for (let batch = 0; batch < 1000; batch++) {
      for (let i = 0; i < BATCH; i++) writeExtended(w, 's1', null, [requests + i, 'some text of a row'], false, true)
      bytes += w.written().length
      w.reuse()
      requests += BATCH
    }
    elapsed = performance.now() - started
  } while (elapsed < seconds * 1000)
  if (bytes === 0) throw new Error('nothing written')
  return requests / (elapsed / 1000)
}

/** @typedef {ReturnType<typeof figures>} Figures */
/**
 * @typedef {object} WireResult
 * @property {{ cpu: string, cores: number, loadavg: number[], node: string }} machine
 * @property {number} rounds
 * @property {number} seconds_per_round
 * @property {Figures} read_messages
 * @property {Figures} write_requests
 */

/**
 * The rounds' figures: mean with its interval, and spread.
 * @param {number[]} rates
 */
function figures(rates) {
  const interval = bootstrapMean(rates)
  return { per_s: interval, spread: spread(rates) }
}

/** @param {string[]} argv */
export async function main(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: 'string', default: '10' },
      seconds: { type: 'string', default: '0.5' },
      json: { type: 'boolean', default: false }
    }
  })
  const rounds = Number(values.rounds)
  const seconds = Number(values.seconds)
  if (!Number.isInteger(rounds) || rounds < 3 || !(seconds > 0)) {
    process.stderr.write('bench wire: --rounds a whole number from 3, --seconds above 0\n')
    process.exit(2)
  }
  const stream = replyStream(REPLIES)
  // warm-up: the hot functions optimised before anything is counted
  readRate(stream, 0.3)
  writeRate(0.3)
  /** @type {number[]} */
  const reads = []
  /** @type {number[]} */
  const writes = []
  // alternated, so that a drift of a shared machine weighs on both alike
  for (let round = 0; round < rounds; round++) {
    reads.push(readRate(stream, seconds))
    writes.push(writeRate(seconds))
  }
  /** @type {WireResult} */
  const result = {
    machine: {
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cores: os.cpus().length,
      loadavg: os.loadavg(),
      node: process.version
    },
    rounds,
    seconds_per_round: seconds,
    read_messages: figures(reads),
    write_requests: figures(writes)
  }
  if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  else printFigures(result)
}

/** @param {WireResult} result */
function printFigures({ machine, rounds, read_messages: read, write_requests: write }) {
  const m = (/** @type {number | null | undefined} */ n) =>
    n === null || n === undefined ? '–' : `${(n / 1e6).toFixed(2)} M`
  const line = (/** @type {string} */ name, /** @type {Figures} */ f) =>
    `${name}: ${m(f.per_s?.mean)}/s (95 % interval ${m(f.per_s?.low)} to ${m(f.per_s?.high)}; ` +
    `rounds ${m(f.spread.min)} to ${m(f.spread.max)})\n`
  process.stdout.write(
    `wire frames, ${rounds} rounds, ${machine.cpu} × ${machine.cores}, load average ${machine.loadavg.map(l => l.toFixed(2)).join(' ')}, node ${machine.node}\n` +
      line('frame reader, messages', read) +
      line('writer, requests (Bind, Execute, Sync)', write)
  )
}
