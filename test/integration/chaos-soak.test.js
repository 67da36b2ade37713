// The chaos soak shortened (benchmarks/chaos/, `npm run bench -- chaos` for
// the 30 minutes): an embedded server in a network namespace with its
// pg_wal on a ZFS dataset, a recorded manta run against it with a 2 s
// request timeout, and three faults of different kinds drawn from a fixed
// seed every 14 to 17 s. The kinds drawn from are those that last 10 s or
// more (a blackhole, a SIGSTOP, the WAL's dataset full, statements past
// the timeout): a fault over in under 3 s, a restart or terminated
// backends, is no change the run's summary reports (docs/causes.md), and
// the 30-minute soak is where those are counted. The end checks are the
// bench's: the run ends well, the insert audit is exact (nothing
// acknowledged missing or vanished, the table holds exactly the rows the
// run says it stored), no backend of the run is left, and the run's summary
// found a change at each fault. The resident-memory slope is left out: 70 s
// say nothing of a trend.
import t from 'tap'
import { runSoak } from '../../benchmarks/chaos/soak.js'
import { endChecks } from '../../benchmarks/chaos/checks.js'
import { drawSchedule } from '../../benchmarks/chaos/schedule.js'
import { soakTables } from '../../benchmarks/chaos/table.js'
import { CONCURRENCY, REQUEST_TIMEOUT_S } from '../../benchmarks/chaos/index.js'

const SEED = 8
const LENGTH_S = 70
/** @type {import('../../benchmarks/chaos/schedule.js').FaultKind[]} */
const KINDS = ['blackhole', 'sigstop', 'wal_full', 'slow_statements']
const schedule = drawSchedule({
  seed: SEED,
  lengthS: LENGTH_S,
  gapS: [14, 17],
  kinds: KINDS,
  distinct: true,
  quietEndS: 12
})

t.test(`a short chaos soak, seed ${SEED}: ${schedule.map(f => f.kind).join(', ')}`, async t => {
  t.ok(new Set(schedule.map(f => f.kind)).size >= 3, 'three faults of different kinds at least')
  const outcome = await runSoak({
    lengthS: LENGTH_S,
    schedule,
    concurrency: CONCURRENCY,
    requestTimeoutS: REQUEST_TIMEOUT_S,
    say: line => t.comment(line)
  })
  const { checks, faults } = endChecks(outcome, { concurrency: CONCURRENCY, lengthS: LENGTH_S, rss: false })
  for (const line of soakTables(faults, checks)) t.comment(line)
  for (const check of checks) t.ok(check.met, `${check.name}: ${check.value} (${check.limit})`)
  if (!checks.every(c => c.met)) t.comment(`the generator's last words:\n${outcome.stderrTail}`)
})
