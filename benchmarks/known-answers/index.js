#!/usr/bin/env node
// The known-answer suite: cases whose answer is fixed by construction (a
// change at a seeded moment, a server whose capacity follows from queueing
// theory, a table with a known dead fraction, an incident with a known
// cause, a plan with an expected effect), each answered by the lab and set
// beside the truth in one table.
//   npm run bench -- answers [--quick] [--seed N] [--answer-parts a,b] [--incident-kinds a,b] [--busy N]
//     [--update-docs]
//   node benchmarks/known-answers/index.js [the same options]
// --busy N spins N processes for the whole suite (a loaded machine: at least
// twice the cores); --update-docs adds the dated table to docs/results.md.
import os from 'node:os'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { machineLine, tableLines } from './table.js'
import { startBusyLoad } from './busy-load.js'
import { addToResults } from './results-doc.js'
import { partMain } from '../part-main.js'
import { INCIDENT_KINDS } from './incidents/kinds.js'

/** The parts, in the order the table shows them: each a module of this folder. */
export const ANSWER_PARTS = ['change-points', 'incidents', 'capacity', 'bloat', 'plans']

const RESULTS = fileURLToPath(new URL('../../docs/results.md', import.meta.url))

/**
 * @typedef {object} SuiteOptions
 * @property {string[]} parts
 * @property {number} seed
 * @property {boolean} quick
 * @property {string[] | null} incidentKinds   the incident kinds to run alone (--incident-kinds)
 * @property {number} busy          spinning processes for the suite's length
 * @property {boolean} updateDocs
 * @property {(line: string) => void} say
 */

/**
 * Runs the parts one after another and prints their table.
 * @param {SuiteOptions} options
 * @returns {Promise<import('./contract.js').KnownAnswerRow[]>}
 */
export async function runKnownAnswers(options) {
  const loadBefore = os.loadavg()[0]
  const stopBusy = options.busy > 0 ? startBusyLoad(options.busy) : () => {}
  /** @type {import('./contract.js').KnownAnswerRow[]} */
  const rows = []
  try {
    for (const name of options.parts) {
      /** @type {import('./contract.js').KnownAnswerPart} */
      const part = await import(`./${name}.js`)
      options.say(`${name}: running`)
      const { seed, quick, incidentKinds, say } = options
      rows.push(...(await part.run({ seed, quick, incidentKinds, say })))
    }
  } finally {
    stopBusy()
  }
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    loadBefore,
    loadAfter: os.loadavg()[0],
    node: process.version,
    date: new Date()
  }
  const lines = [...tableLines(rows), '', machineLine(machine)]
  process.stdout.write(lines.join('\n') + '\n')
  if (options.updateDocs) {
    const state = options.busy > 0 ? `loaded (${options.busy} spinning processes)` : 'as found'
    const size = options.quick ? 'quick subset' : 'whole suite'
    const heading = `${machine.date.toISOString().slice(0, 10)}, ${size}, ${state}`
    await addToResults(RESULTS, heading, lines)
  }
  return rows
}

/**
 * The suite's options from the command line; a wrong one is one line and exit 2.
 * @param {string[]} args
 * @returns {SuiteOptions}
 */
export function suiteOptions(args) {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      seed: { type: 'string', default: '1' },
      'answer-parts': { type: 'string', default: ANSWER_PARTS.join(',') },
      busy: { type: 'string', default: '0' },
      'incident-kinds': { type: 'string' },
      'update-docs': { type: 'boolean', default: false }
    }
  })
  const parts = values['answer-parts'].split(',').filter(Boolean)
  const unknown = parts.find(part => !ANSWER_PARTS.includes(part))
  if (unknown) throw new RangeError(`unknown part "${unknown}" (parts: ${ANSWER_PARTS.join(', ')})`)
  const seed = Number(values.seed)
  const busy = Number(values.busy)
  if (!Number.isSafeInteger(seed)) throw new RangeError('--seed must be a whole number')
  if (!Number.isInteger(busy) || busy < 0) throw new RangeError('--busy must be a whole number, 0 or more')
  const incidentKinds = values['incident-kinds']?.split(',').filter(Boolean) ?? null
  const unknownKind = incidentKinds?.find(kind => !INCIDENT_KINDS.some(k => k.name === kind))
  if (unknownKind) {
    throw new RangeError(
      `unknown incident kind "${unknownKind}" (kinds: ${INCIDENT_KINDS.map(k => k.name).join(', ')})`
    )
  }
  return {
    parts,
    seed,
    quick: values.quick,
    incidentKinds,
    busy,
    updateDocs: values['update-docs'],
    say: line => process.stderr.write(`bench answers: ${line}\n`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2))

/** @param {string[]} args */
export async function main(args) {
  await partMain('answers', args, suiteOptions, async options => (await runKnownAnswers(options)).every(row => row.met))
}
