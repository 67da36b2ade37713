// The bench's result as Markdown tables, ready for docs/performance.md.
import { checkpointNote } from './checkpoint.js'
import { autovacuumNote } from './quiet-table.js'

/** @typedef {{ min: number, median: number, max: number }} Spread */

/** @param {Spread} s @param {number} [digits] */
const f = (s, digits = 0) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`
/** @param {number | null} bytes */
const mib = bytes => (bytes === null ? 'n/a' : `${(bytes / 1048576).toFixed(0)} MiB`)

const VERDICTS_UNDECIDED =
  'undecided (the interval straddles it: the pairs swing more than the distance to the goal; more rounds narrow it)'

const CEILING_VERDICTS = {
  met: 'met (the whole interval is at or below it)',
  missed: 'missed (the whole interval is above it)',
  undecided: VERDICTS_UNDECIDED
}

const VERDICTS = {
  met: 'met (the whole interval is at or above it)',
  missed: 'missed (the whole interval is below it)',
  undecided:
    'undecided (the interval straddles it: the pairs swing more than the distance to the goal; more rounds narrow it)'
}

/**
 * A ratio's interval and, when there is a goal, whether it is met.
 * @param {string} what
 * @param {import('./stats.js').GoalCheck | null | undefined} g
 */
export function goalLine(what, g) {
  if (!g) return `${what}: no pairs`
  if (g.low === null || g.high === null) {
    const line = `${what}: mean ${g.mean.toFixed(3)} over ${g.n} pairs, too few for an interval`
    return g.goal === null ? line : `${line}; goal ${g.ceiling ? 'at most ' : ''}${g.goal}: undecided`
  }
  const interval =
    `mean ${g.mean.toFixed(3)}, ${Math.round(g.level * 100)} % interval ` +
    `${g.low.toFixed(3)}–${g.high.toFixed(3)} over ${g.n} pairs`
  if (g.goal === null || g.verdict === null) return `${what}: ${interval}`
  if (g.ceiling) return `${what}: ${interval}; goal at most ${g.goal}: ${CEILING_VERDICTS[g.verdict]}`
  return `${what}: ${interval}; goal ${g.goal}: ${VERDICTS[g.verdict]}`
}

/** @param {any} r */
export function printResult(r) {
  process.stdout.write(resultLines(r).join('\n') + '\n')
}

/**
 * The bench's result as lines of Markdown.
 * @param {any} r
 */
export function resultLines(r) {
  const m = r.machine
  const s = r.server
  const lines = [
    `machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gib} GiB, Linux ${m.kernel}, Node ${m.node}`,
    `server: PostgreSQL ${s.version} (${s.kind}) on ${s.host}, shared_buffers ${s.shared_buffers_mib} MiB, ` +
      `synchronous_commit ${s.synchronous_commit}`
  ]
  // the parts that run pgbench say how it ran
  if (r.manta || r.builtins) {
    lines.push(
      `pgbench: -M prepared -j 1 (one thread, as pgloadgen's one event loop), -n; concurrency ` +
        `${r.concurrency} on both sides`
    )
  }
  if (r.manta) lines.push('', ...manta(r.manta))
  if (r.threads) lines.push('', ...threads(r.threads))
  if (r.builtins) lines.push('', ...builtins(r.builtins))
  if (r.copy) {
    const c = r.copy
    lines.push(
      '',
      `COPY of ${c.rows} TSBS cpu rows (${mib(c.bytes)} of text), ${c.rounds} rounds, ` +
        `${checkpointNote(c.checkpoints)}:`,
      '',
      '| | ours | pg-copy-streams |',
      '|---|---|---|',
      `| rows/s, median (min–max) | ${f(c.ours.rows_per_s)} | ${f(c.pg_copy_streams.rows_per_s)} |`,
      `| CPU µs per row | ${f(c.ours.cpu_us_per_row, 3)} | ${f(c.pg_copy_streams.cpu_us_per_row, 3)} |`,
      '',
      `ratio ours / pg-copy-streams: ${f(c.ratio, 3)}`
    )
  }
  if (r.soak) {
    const k = r.soak
    const rss = k.rss_samples.map((/** @type {{ rss_bytes: number }} */ x) => (x.rss_bytes / 1048576).toFixed(0))
    lines.push(
      '',
      `soak: concurrency ${k.concurrency} for ${k.duration_s} s, ${k.throughput} req/s, ` +
        `${k.unexpected_failures} unexpected failures`,
      `  RSS every 5 s (MiB): ${rss.join(' ')}`,
      `  growth after warm-up: ${mib(k.rss_growth_after_warmup_bytes)}, peak ${mib(k.peak_rss_bytes)}`
    )
  }
  if (r.ingest) lines.push('', ...ingest(r.ingest))
  return lines
}

/** @param {any} r */
function ingest(r) {
  const sides = [
    ['psql \\copy (text)', r.psql],
    ['pgloadgen copy-binary', r.pgloadgen['copy-binary']],
    ['pgloadgen copy (text)', r.pgloadgen.copy]
  ]
  /** @param {(side: any) => string} cell */
  const row = cell => sides.map(([, side]) => cell(side)).join(' | ')
  const a = r.anchors
  return [
    `TSBS cpu-only ingest: ${r.rows} rows (${r.hosts} hosts, 10 metrics a row, batches of ${r.batch_size}) into ` +
      `tsbs_cpu with TSBS's two indexes, one stream a side, ${r.rounds} rounds, ${checkpointNote(r.checkpoints)}:`,
    '',
    `| | ${sides.map(([name]) => name).join(' | ')} |`,
    '|---|---|---|---|',
    `| rows/s, median (min–max) | ${row(side => f(side.rows_per_s))} |`,
    `| metrics/s | ${row(side => f(side.metrics_per_s))} |`,
    `| client CPU µs per row | ` +
      `${row(side => (Number.isNaN(side.cpu_us_per_row.median) ? 'n/a' : f(side.cpu_us_per_row, 2)))} |`,
    `| client peak RSS | ${row(side => mib(side.peak_rss_bytes))} |`,
    '',
    `ratio pgloadgen / psql \\copy: copy-binary ${f(r.ratio['copy-binary'], 3)}, copy ${f(r.ratio.copy, 3)}`,
    ...Object.entries(r.goal).map(([method, g]) => goalLine(`  ${method} / psql \\copy`, /** @type {any} */ (g))),
    `anchors: TimescaleDB talk, PostgreSQL 9.6.2 on ${a.timescaledb_talk_cores} cores, batch inserts: ` +
      `${(a.timescaledb_talk_metrics_per_s / 1e6).toFixed(2)}M metrics/s; TSBS README sample, ` +
      `${a.tsbs_readme_workers} workers: ${(a.tsbs_readme_metrics_per_s / 1e6).toFixed(2)}M metrics/s.`
  ]
}

/** @param {any} r */
function threads(r) {
  return [
    `manta mix (${r.mix}), pgloadgen --threads N against pgbench -j N, ${r.rounds} rounds of ${r.duration_s} s ` +
      `each, ${checkpointNote(r.checkpoints)}${autovacuumNote(r.autovacuum_off)}:`,
    '',
    '| threads | pgloadgen req/s | pgbench req/s | ratio | CPU µs/req pgloadgen | CPU µs/req pgbench | CPU ratio |',
    '|---|---|---|---|---|---|---|',
    ...r.results.map(threadsRow),
    '',
    ...r.results.map((/** @type {any} */ x) => goalLine(`ratio --threads ${x.threads} / -j ${x.threads}`, x.goal)),
    ...r.results.map((/** @type {any} */ x) =>
      goalLine(`CPU per request --threads ${x.threads} / -j ${x.threads}`, x.cpu_goal)
    )
  ]
}

/** @param {any} x  one thread count's figures */
function threadsRow(x) {
  const cells = [
    x.threads,
    f(x.pgloadgen.throughput),
    f(x.pgbench.throughput),
    f(x.ratio, 2),
    f(x.pgloadgen.cpu_us_per_request, 1),
    x.pgbench.cpu_us_per_request ? f(x.pgbench.cpu_us_per_request, 1) : 'n/a',
    x.cpu_ratio ? f(x.cpu_ratio, 2) : 'n/a'
  ]
  return `| ${cells.join(' | ')} |`
}

/** @param {any} r */
function manta(r) {
  const lines = [
    `manta mix (${r.mix}), ${r.rounds} rounds of ${r.duration_s} s, ` +
      `${checkpointNote(r.checkpoints)}${autovacuumNote(r.autovacuum_off)}:`,
    '',
    '| | pgloadgen | pgbench |',
    '|---|---|---|',
    `| throughput (req/s), median (min–max) | ${f(r.pgloadgen.throughput)} | ${f(r.pgbench.throughput)} |`,
    `| CPU µs per request | ${f(r.pgloadgen.cpu_us_per_request, 1)} | ` +
      `${r.pgbench.cpu_us_per_request ? f(r.pgbench.cpu_us_per_request, 1) : 'n/a'} |`,
    `| peak RSS | ${mib(r.pgloadgen.peak_rss_bytes)} | ${mib(r.pgbench.peak_rss_bytes)} |`,
    `| p50 latency (µs) | ${f(r.pgloadgen.latency_us.p50)} | ${f(r.pgbench.latency_us.p50)} |`,
    `| p99 latency (µs) | ${f(r.pgloadgen.latency_us.p99)} | ${f(r.pgbench.latency_us.p99)} |`,
    '',
    `ratio pgloadgen / pgbench: ${f(r.ratio, 3)}`,
    goalLine('  ratio', r.ratio_interval)
  ]
  if (r.memory) lines.push(...memoryLines(r.memory))
  if (r.stats_polling) {
    const p = r.stats_polling
    lines.push(
      '',
      `stats polling every 1 s vs none (${r.rounds} pairs): throughput ratio ${f(p.throughput_ratio, 3)}, ` +
        `p99 ratio ${f(p.p99_ratio, 3)}`,
      `  with polling ${f(p.with_1s_polling.throughput)} req/s, p99 ${f(p.with_1s_polling.p99_us)} µs; ` +
        `without ${f(p.without.throughput)} req/s, p99 ${f(p.without.p99_us)} µs`
    )
  }
  return lines
}

/**
 * Peak resident memory of the manta part's runs, pgbench's beside.
 * @param {any} m  the manta part's memory (manta.js peakMemory)
 */
export function memoryLines(m) {
  /** @param {Spread | null} s */
  const peak = s => (s === null ? 'n/a' : `${mib(s.median)} (${mib(s.min)}–${mib(s.max)})`)
  return [
    '',
    `peak RSS at concurrency ${m.concurrency}, median (min–max) of the timed runs ` +
      "(VmHWM; pgbench's from GNU time):",
    `  pgloadgen ${peak(m.pgloadgen_peak_rss_bytes)}, ` +
      `with 1 s stats polling ${peak(m.with_stats_polling_peak_rss_bytes)}; pgbench ${peak(m.pgbench_peak_rss_bytes)}`,
    `  goal at most ${m.goal_mib} MiB in every pgloadgen run: ${m.met ? 'met' : 'missed'} (${m.runs} runs)`
  ]
}

/** @param {any} r */
function builtins(r) {
  const lines = [
    `pgbench's built-in scripts at scale ${r.scale}, ${r.rounds} rounds of ${r.duration_s} s each:`,
    '',
    '| script | pgloadgen tps | pgbench tps | ratio | CPU µs/tx pgloadgen | CPU µs/tx pgbench | p99 µs pgloadgen | ' +
      'p99 µs pgbench | invariant |',
    '|---|---|---|---|---|---|---|---|---|'
  ]
  for (const b of r.results) {
    lines.push(
      `| ${b.builtin} | ${f(b.pgloadgen.throughput)} | ${f(b.pgbench.throughput)} | ${f(b.ratio, 2)} | ` +
        `${f(b.pgloadgen.cpu_us_per_request, 1)} | ` +
        `${b.pgbench.cpu_us_per_request ? f(b.pgbench.cpu_us_per_request, 1) : 'n/a'} | ${f(b.pgloadgen.p99_us)} ` +
        `| ${f(b.pgbench.p99_us)} | ${b.invariant_held ? 'held' : 'BROKEN'} |`
    )
  }
  const failures = r.results.reduce(
    (/** @type {number} */ n, /** @type {any} */ b) => n + b.pgloadgen.unexpected_failures,
    0
  )
  lines.push(
    '',
    ...r.results.map((/** @type {any} */ b) => goalLine(`ratio ${b.builtin}`, b.goal)),
    `unexpected failures of pgloadgen: ${failures}`
  )
  return lines
}
