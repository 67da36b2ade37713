// Every run summary a test sees is checked against docs/summary.schema.json:
// a field renamed, retyped or added without the schema fails the test that
// produced it, so the published schema cannot drift from what runs write.
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

export const SUMMARY_SCHEMA_FILE = new URL('../../docs/summary.schema.json', import.meta.url)

/** @type {import('ajv').ValidateFunction | null} */
let validate = null

/** The schema, compiled once. */
function validator () {
  if (validate === null) {
    const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true })
    addFormats(ajv)
    validate = ajv.compile(JSON.parse(readFileSync(SUMMARY_SCHEMA_FILE, 'utf8')))
  }
  return validate
}

/**
 * What is wrong with a summary, one line per problem; none when it is valid.
 * @param {unknown} summary
 * @returns {string[]}
 */
export function summaryProblems (summary) {
  const check = validator()
  if (check(summary)) return []
  return (check.errors ?? []).map(error => {
    const params = /** @type {{ additionalProperty?: string }} */ (error.params)
    const extra = error.keyword === 'additionalProperties' ? ` (${params.additionalProperty})` : ''
    return `${error.instancePath || '/'} ${error.message}${extra}`
  })
}

/**
 * Throws when a summary does not follow the schema, naming each problem.
 * @param {unknown} summary
 * @param {string} where   what the summary is: named in the error
 */
export function assertValidSummary (summary, where) {
  const problems = summaryProblems(summary)
  if (problems.length > 0) throw new Error(`${where} does not follow docs/summary.schema.json: ${problems.join('; ')}`)
}

/**
 * A run's summary.json, read and checked against the schema.
 * @param {string} file
 * @returns {Promise<any>}
 */
export async function readRunSummary (file) {
  const summary = JSON.parse(await readFile(file, 'utf8'))
  assertValidSummary(summary, file)
  return summary
}
