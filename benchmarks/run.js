#!/usr/bin/env node
// npm run bench: pgloadgen against its peers on one server, in one run,
// alternating A B, B A so that drift of the machine cancels out:
//   manta     the original mix against pgbench with the same statements, and
//             the cost of polling the statistics
//   threads   the same mix, pgloadgen --threads N against pgbench -j N (N = 1, 2)
//   builtins  pgbench's tpcb-like, simple-update and select-only, run by
//             pgloadgen and by pgbench, with the TPC-B invariant checked
//   copy      COPY FROM STDIN through our wire client and through pg-copy-streams
//   soak      high concurrency for a while, resident memory sampled
//   ingest    TSBS cpu-only rows: pgloadgen's tsbs-cpu against psql's \copy
//             of the same rows (npm run bench -- ingest [URL]: that part alone)
//   answers   the known-answer suite (benchmarks/known-answers/), on servers
//             of its own: npm run bench -- answers [--quick] [--busy N] …
//   chaos     the chaos soak (benchmarks/chaos/): faults drawn from a seed for
//             an hour, on a server of its own: npm run bench -- chaos
//             [--minutes N] [--seed N] [--update-docs]
//   wire      the wire client's frame reader and writer alone, no server
//             (benchmarks/wire-frames.js): npm run bench -- wire [--rounds N]
//             [--seconds S] [--json]
import { parseArgs } from 'node:util'
import os from 'node:os'
import pg from 'pg'
import { EmbeddedServer } from '../lib/embedded/server.js'
import { chooseServer } from '../lib/embedded/server-choice.js'
import { DEFAULT_MAJOR, parseMajor } from '../lib/embedded/majors.js'
import { InputError } from '../lib/errors.js'
import { parsePgUrl } from '../lib/config/pg-url.js'
import { createLogger } from '../lib/log.js'
import { compareManta } from './manta.js'
import { compareBuiltins } from './builtins.js'
import { compareThreads } from './threads.js'
import { compareCopy } from './copy.js'
import { runSoak } from './soak.js'
import { compareIngest } from './ingest.js'
import { printResult } from './print.js'
import { main as knownAnswers } from './known-answers/index.js'
import { main as chaos } from './chaos/index.js'
import { main as wireFrames } from './wire-frames.js'

// the known-answer suite and the chaos soak start their own servers and take options of their own
if (process.argv[2] === 'answers') {
  await knownAnswers(process.argv.slice(3))
  process.exit()
}
if (process.argv[2] === 'chaos') {
  await chaos(process.argv.slice(3))
  process.exit()
}
// the frame reader and the writer need no server
if (process.argv[2] === 'wire') {
  await wireFrames(process.argv.slice(3))
  process.exit()
}

const PARTS = ['manta', 'threads', 'builtins', 'copy', 'soak', 'ingest', 'answers', 'chaos', 'wire']

const USAGE = `usage: npm run bench -- [--parts ${PARTS.join(',')}] [-c N] [-d SECONDS] [-r ROUNDS] [--json] [URL]
       npm run bench -- PART [URL]     that part alone
       npm run bench -- answers [--quick] [--seed N] [--answer-parts a,b] [--busy N] [--update-docs]
       npm run bench -- chaos [--minutes N] [--seed N] [--update-docs]
       npm run bench -- wire [--rounds N] [--seconds S] [--json]
  --builtin-duration, --builtin-rounds, --builtin-scale, --copy-rows, --ingest-rows,
  --soak-concurrency, --soak-duration, --no-soak, --no-stats-compare, --data-dir, --profile,
  --pg-version N (the embedded server's PostgreSQL major, default 18), --offline
  without URL (or PGLOADGEN_PG_URL), the bench runs on its own embedded server
`

const { values, positionals } = parseOptions()
if (values.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}

/** The command line, or one line and exit 2 when it is wrong. */
function parseOptions() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        parts: { type: 'string', default: PARTS.join(',') },
        concurrency: { type: 'string', short: 'c', default: '8' },
        duration: { type: 'string', short: 'd', default: '15' },
        rounds: { type: 'string', short: 'r', default: '5' },
        'builtin-duration': { type: 'string', default: '30' },
        'builtin-rounds': { type: 'string', default: '5' },
        'builtin-scale': { type: 'string', default: '10' },
        'copy-rows': { type: 'string', default: '1000000' },
        'ingest-rows': { type: 'string', default: '1000000' },
        'data-dir': { type: 'string' },
        'pg-version': { type: 'string' },
        offline: { type: 'boolean', default: false },
        // the lab profile with checkpoints only where the bench runs them (notes/postgres/bench.conf)
        profile: { type: 'string', default: 'bench' },
        json: { type: 'boolean', default: false },
        'soak-concurrency': { type: 'string', default: '256' },
        'soak-duration': { type: 'string', default: '60' },
        'no-soak': { type: 'boolean', default: false },
        'no-stats-compare': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false }
      }
    })
  } catch (err) {
    // parseArgs's message is two sentences; the first says what is wrong
    return usageExit(
      `${err instanceof Error ? err.message.split(/\.(?:\s|$)/)[0] : String(err)} (npm run bench -- --help)`
    )
  }
}

const log = createLogger({ level: process.env.LOG_LEVEL ?? 'info' })
const numbers = Object.fromEntries(
  [
    'concurrency',
    'duration',
    'rounds',
    'builtin-duration',
    'builtin-rounds',
    'builtin-scale',
    'copy-rows',
    'ingest-rows',
    'soak-concurrency',
    'soak-duration'
  ].map(name => [name, Number(values[/** @type {keyof typeof values} */ (name)])])
)
const bad = Object.entries(numbers).find(([, n]) => !Number.isInteger(n) || n <= 0)
// A part named first on the command line is that part alone (npm run bench -- ingest); a URL may follow.
const partArgument = PARTS.includes(positionals[0]) ? positionals.shift() : undefined
const parts = partArgument ? [partArgument] : String(values.parts).split(',').filter(Boolean)
const unknownPart = parts.find(part => !PARTS.includes(part))
if (bad || unknownPart) {
  usageExit(
    bad ? `--${bad[0]} must be a positive whole number` : `unknown part "${unknownPart}" (parts: ${PARTS.join(', ')})`
  )
}
if (values['no-soak']) parts.splice(parts.indexOf('soak') >>> 0, parts.includes('soak') ? 1 : 0)

const url = positionals[0] ?? process.env.PGLOADGEN_PG_URL
// a wrong URL is told before anything starts, and without its password
const target = url === undefined ? null : orUsageExit(() => parsePgUrl(url))
if (target && values['pg-version'] !== undefined) {
  usageExit("--pg-version: only for the bench's own embedded server, not a server given by URL")
}
// the bench's own data directory, one per major: ./.pgloadgen/bench-pgdata (18), bench-pgdata-N
const major = orUsageExit(() => parseMajor(values['pg-version']))
const choice = target
  ? null
  : await chooseServer({
      pgVersion: major,
      profile: /** @type {string} */ (values.profile),
      offline: values.offline,
      dataDir: values['data-dir'] ?? `./.pgloadgen/bench-pgdata${major === DEFAULT_MAJOR ? '' : `-${major}`}`
    }).catch(err => (err instanceof InputError ? usageExit(err.message) : Promise.reject(err)))
const embedded = choice
  ? new EmbeddedServer({
      dataDir: choice.dataDir,
      profileFile: choice.profileFile,
      log,
      major: choice.major,
      offline: choice.offline,
      adaptProfile: choice.adaptProfile
    })
  : null

try {
  // as given: pgbench reads it too, and would refuse parameters of node-postgres's own
  const connectionString = url ?? (await /** @type {EmbeddedServer} */ (embedded).start())
  const result = {
    machine: machine(),
    server: await server(connectionString, embedded !== null ? `embedded, profile ${values.profile}` : 'given by URL'),
    concurrency: numbers.concurrency,
    manta: parts.includes('manta')
      ? {
          duration_s: numbers.duration,
          rounds: numbers.rounds,
          ...(await compareManta({
            url: connectionString,
            reset: embedded !== null,
            concurrency: numbers.concurrency,
            durationS: numbers.duration,
            rounds: numbers.rounds,
            statsCompare: !values['no-stats-compare'],
            log
          }))
        }
      : null,
    threads: parts.includes('threads')
      ? await compareThreads({
          url: connectionString,
          reset: embedded !== null,
          concurrency: numbers.concurrency,
          durationS: numbers.duration,
          rounds: numbers.rounds,
          threads: [1, 2],
          log
        })
      : null,
    builtins: parts.includes('builtins')
      ? await compareBuiltins({
          url: connectionString,
          scale: numbers['builtin-scale'],
          concurrency: numbers.concurrency,
          durationS: numbers['builtin-duration'],
          rounds: numbers['builtin-rounds'],
          reinit: embedded !== null,
          log
        })
      : null,
    copy: parts.includes('copy')
      ? await compareCopy({ url: connectionString, rows: numbers['copy-rows'], rounds: numbers.rounds, log })
      : null,
    soak: parts.includes('soak')
      ? await runSoak({
          url: connectionString,
          concurrency: numbers['soak-concurrency'],
          durationS: numbers['soak-duration']
        })
      : null,
    ingest: parts.includes('ingest')
      ? await compareIngest({ url: connectionString, rows: numbers['ingest-rows'], rounds: numbers.rounds, log })
      : null
  }
  if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  else printResult(result)
  // last, and on servers of its own: the whole known-answer suite
  if (parts.includes('answers')) await knownAnswers([])
  // and the chaos soak, an hour on a server of its own
  if (parts.includes('chaos')) await chaos([])
  if (parts.includes('wire')) await wireFrames([])
} catch (err) {
  // a server that cannot be reached, a run that failed: one line, as the CLI's
  const message = err instanceof Error ? err.message : String(err)
  process.stderr.write(
    `bench: ${target ? message.replaceAll(/** @type {string} */ (url), target.display) : message}`.split('\n')[0] + '\n'
  )
  // LOG_LEVEL=debug for the whole story
  if (err instanceof Error) log.debug(String(err.stack))
  process.exitCode = 1
} finally {
  await embedded?.stop()
}

/**
 * What make returns, or one line and exit 2 when it is bad input.
 * @template T
 * @param {() => T} make
 * @returns {T}
 */
function orUsageExit(make) {
  try {
    return make()
  } catch (err) {
    if (!(err instanceof InputError)) throw err
    return usageExit(err.message)
  }
}

/**
 * Bad input: one line, exit 2.
 * @param {string} message
 * @returns {never}
 */
function usageExit(message) {
  process.stderr.write(`bench: ${message}\n`)
  process.exit(2)
}

/** What the figures came from: this machine. */
function machine() {
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    kernel: os.release(),
    node: process.version
  }
}

/**
 * @param {string} connectionString
 * @param {string} kind
 */
async function server(connectionString, kind) {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    const rows = (
      await client.query(
        "SELECT name, setting, unit FROM pg_settings WHERE name IN ('server_version', 'shared_buffers', " +
          "'synchronous_commit', 'max_connections')"
      )
    ).rows
    const setting = (/** @type {string} */ name) => rows.find(row => row.name === name)
    const buffers = setting('shared_buffers')
    return {
      kind,
      version: setting('server_version')?.setting,
      shared_buffers_mib: buffers
        ? Math.round((Number(buffers.setting) * (buffers.unit === '8kB' ? 8192 : 1)) / 2 ** 20)
        : null,
      synchronous_commit: setting('synchronous_commit')?.setting,
      // on loopback, the server shares this machine's cores with the client
      host: ['localhost', '127.0.0.1', '::1', '[::1]', ''].includes(new URL(connectionString).hostname)
        ? 'this machine'
        : new URL(connectionString).hostname
    }
  } finally {
    await client.end()
  }
}
