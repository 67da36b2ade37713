// The known-answer suite's incidents: real disturbances of an embedded
// server (a lock, a held snapshot, a prepared transaction, a manual VACUUM
// FREEZE and a burst of checkpoints on the io-bound profile's throttled
// disk, a paused server, a reconnect storm) or of the machine (busy-loop
// processes that start, or that end), each at a seeded moment for a seeded
// length during a recorded load, and steady runs with nothing injected.
// Per kind: how often the run's summary found a change near the true
// start, how late, and how often the first cause named was the true one
// (docs/causes.md).
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { DiskThrottle } from '../../lib/lab/disk-throttle.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { createLogger } from '../../lib/log.js'
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'
import { INCIDENT_KINDS } from './incidents/kinds.js'
import { runCase } from './incidents/case.js'
import { incidentRows } from './incidents/rows.js'

const PART = 'causes'
// the kinds the quick subset runs, once each
const QUICK_KINDS = ['lock', 'cpu', 'pause']
const CASES = 3
const STEADY_CASES = 6
const DURATION_S = 50
const CONCURRENCY = 4
// The io-bound profile's server on a slower disk (its data files' reads and
// writes, direct I/O): a VACUUM FREEZE of a large table then takes seconds,
// as on the small disks the profile stands for.
/** @type {Record<string, import('../../lib/lab/disk-throttle.js').DiskLimit>} */
const DISK_LIMITS = {
  'io-bound': { readBps: 16e6, readIops: null, writeBps: 16e6, writeIops: null }
}

/**
 * @param {import('./contract.js').KnownAnswerContext} context
 * @returns {Promise<import('./contract.js').KnownAnswerRow[]>}
 */
export async function run({ seed, quick, incidentKinds, say }) {
  const random = mulberry32(seed ^ 0x1c1d)
  const chosen = incidentKinds ?? (quick ? QUICK_KINDS : null)
  const kinds = chosen ? INCIDENT_KINDS.filter(k => chosen.includes(k.name)) : INCIDENT_KINDS
  /** @type {import('./incidents/case.js').CaseOutcome[]} */
  const outcomes = []
  for (const profile of [...new Set(kinds.map(k => k.profile))]) {
    await withServer(profile, async (url, dataDir) => {
      for (const kind of kinds.filter(k => k.profile === profile)) {
        for (let i = 0; i < (quick ? 1 : CASES); i++) {
          const o = await runCase({ url, dataDir, kind, random, durationS: DURATION_S, concurrency: CONCURRENCY })
          say(`incidents: ${kind.name} ${i + 1}: ${describe(o)}`)
          outcomes.push(o)
        }
      }
      if (profile === 'lab' && !quick && !incidentKinds) {
        for (let i = 0; i < STEADY_CASES; i++) {
          const o = await runCase({ url, dataDir, kind: null, random, durationS: DURATION_S, concurrency: CONCURRENCY })
          say(`incidents: steady ${i + 1}: ${o.changes} change(s)${o.firstKind ? `, first cause ${o.firstKind}` : ''}`)
          outcomes.push(o)
        }
      }
    })
  }
  return incidentRows(PART, kinds, outcomes)
}

/** @param {import('./incidents/case.js').CaseOutcome} o */
function describe(o) {
  if (!o.found)
    return `no change within the window (true start ${o.startS} s; changes at ${o.changesAt.join(', ') || 'none'})`
  return `change ${o.delayS} s from the start, first cause ${o.firstKind}${o.right ? '' : ` (${o.firstLabel})`}`
}

/**
 * An embedded server of the profile (prepared transactions allowed; the
 * io-bound profile's on a throttled disk) for the length of fn, in a data
 * directory removed afterwards.
 * @param {string} profile
 * @param {(url: string, dataDir: string) => Promise<void>} fn
 */
export async function withServer(profile, fn) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-incidents-'))
  const log = createLogger({ level: 'warn' })
  const server = new EmbeddedServer({
    dataDir,
    profileFile: resolveProfile(profile),
    log,
    adaptProfile: text => `${text}\nmax_prepared_transactions = 10\n`
  })
  const limit = DISK_LIMITS[profile]
  const throttle = limit ? await DiskThrottle.create({ dataDir, limit, log }) : null
  try {
    const url = await server.start()
    await throttle?.attach()
    await fn(url, dataDir)
  } finally {
    await server.shutdown().catch(() => {})
    await throttle?.release().catch(() => {})
    await rm(dataDir, { recursive: true, force: true })
  }
}
