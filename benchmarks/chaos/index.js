#!/usr/bin/env node
// The chaos soak: one embedded server in a network namespace, its pg_wal
// on a ZFS dataset with a quota, one recorded pgloadgen run against it
// with the insert audit and a request timeout, and faults drawn from a
// seed every one to three minutes (schedule.js, faults.js). At the end:
// the audit exact, no backend of the run left, the generator's resident
// memory flat, each fault found by the run's summary at its moment
// (checks.js). Exit 1 when a check fails.
//   npm run bench -- chaos [--minutes N] [--seed N] [--update-docs]
import os from 'node:os'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { drawSchedule } from './schedule.js'
import { runSoak } from './soak.js'
import { endChecks } from './checks.js'
import { soakTables } from './table.js'
import { machineLine } from '../known-answers/table.js'
import { addToResults } from '../known-answers/results-doc.js'
import { partMain } from '../part-main.js'

const RESULTS = fileURLToPath(new URL('../../docs/results.md', import.meta.url))
export const CONCURRENCY = 8
export const REQUEST_TIMEOUT_S = 2

/**
 * @typedef {object} ChaosOptions
 * @property {number} minutes
 * @property {number} seed
 * @property {boolean} updateDocs
 */

/**
 * The soak's options from the command line.
 * @param {string[]} args
 * @returns {ChaosOptions}
 */
export function chaosOptions(args) {
  const { values } = parseArgs({
    args,
    options: {
      minutes: { type: 'string', default: '60' },
      seed: { type: 'string', default: '1' },
      'update-docs': { type: 'boolean', default: false }
    }
  })
  const minutes = Number(values.minutes)
  const seed = Number(values.seed)
  if (!Number.isFinite(minutes) || minutes < 2) throw new RangeError('--minutes must be a number, 2 or more')
  if (!Number.isSafeInteger(seed)) throw new RangeError('--seed must be a whole number')
  return { minutes, seed, updateDocs: values['update-docs'] }
}

/**
 * Runs the soak and prints its tables; whether every check was met.
 * @param {ChaosOptions} options
 */
export async function runChaos({ minutes, seed, updateDocs }) {
  const lengthS = Math.round(minutes * 60)
  const schedule = drawSchedule({ seed, lengthS })
  const loadBefore = os.loadavg()[0]
  const say = (/** @type {string} */ line) => process.stderr.write(`bench chaos: ${line}\n`)
  const outcome = await runSoak({
    lengthS,
    schedule,
    concurrency: CONCURRENCY,
    requestTimeoutS: REQUEST_TIMEOUT_S,
    say
  })
  const { checks, faults } = endChecks(outcome, { concurrency: CONCURRENCY, lengthS, rss: true })
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    loadBefore,
    loadAfter: os.loadavg()[0],
    node: process.version,
    date: new Date()
  }
  const lines = [
    `${minutes} minutes, seed ${seed}, ${CONCURRENCY} clients, --request-timeout ${REQUEST_TIMEOUT_S}s, ` +
      `${outcome.summary?.acknowledged_inserts ?? '?'} inserts acknowledged`,
    '',
    ...soakTables(faults, checks),
    '',
    machineLine(machine)
  ]
  process.stdout.write(lines.join('\n') + '\n')
  const met = checks.every(c => c.met)
  if (!met) say(`the generator's last words:\n${outcome.stderrTail}`)
  if (updateDocs && met) {
    await addToResults(RESULTS, `${machine.date.toISOString().slice(0, 10)}, chaos soak, seed ${seed}`, lines, 'chaos')
  } else if (updateDocs) say('a check failed: docs/results.md left as it was')
  return met
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2))

/** @param {string[]} args */
export async function main(args) {
  await partMain('chaos', args, chaosOptions, runChaos)
}
