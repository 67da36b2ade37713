// Every summary a test sees is checked against its published schema: a run's
// against docs/summary.schema.json, an experiment's against
// docs/experiment-summary.schema.json. A field renamed, retyped or added
// without the schema fails the test that produced it, so the published
// schemas cannot drift from what pgloadgen writes.
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

export const SUMMARY_SCHEMA_FILE = new URL('../../docs/summary.schema.json', import.meta.url)
export const EXPERIMENT_SUMMARY_SCHEMA_FILE = new URL('../../docs/experiment-summary.schema.json', import.meta.url)

/** @type {import('ajv').default | null} */
let ajv = null
/** @type {Map<string, import('ajv').ValidateFunction>} */
const compiled = new Map()

/**
 * A schema file, compiled once.
 * @param {URL} file
 */
function validator(file) {
  let validate = compiled.get(file.href)
  if (!validate) {
    ajv ??= addFormats(new Ajv2020({ allErrors: true, allowUnionTypes: true }))
    validate = ajv.compile(JSON.parse(readFileSync(file, 'utf8')))
    compiled.set(file.href, validate)
  }
  return validate
}

/**
 * What is wrong with a summary against a schema, one line per problem;
 * none when it is valid.
 * @param {URL} file   the schema
 * @param {unknown} summary
 * @returns {string[]}
 */
function problemsAgainst(file, summary) {
  const check = validator(file)
  if (check(summary)) return []
  const errors = check.errors ?? []
  // A field that may be null (oneOf: null or an object) and is a wrong
  // object also fails the null branch and the oneOf itself: those two say
  // nothing the object's own errors do not, so they are left out when the
  // object has some.
  const branching = (/** @type {import('ajv').ErrorObject} */ error) =>
    error.keyword === 'oneOf' ||
    (error.keyword === 'type' && /\/oneOf\/\d+\/type$/.test(error.schemaPath) && error.params.type === 'null')
  const explained = (/** @type {import('ajv').ErrorObject} */ error) =>
    errors.some(
      other =>
        !branching(other) &&
        (other.instancePath === error.instancePath || other.instancePath.startsWith(`${error.instancePath}/`))
    )
  const left = errors.filter(error => branching(error) && explained(error))
  const nullable = new Set(left.filter(error => error.keyword === 'type').map(error => error.instancePath))
  return errors
    .filter(error => !left.includes(error))
    .map(error => {
      const params = /** @type {{ additionalProperty?: string }} */ (error.params)
      const extra =
        error.keyword === 'additionalProperties'
          ? ` (${params.additionalProperty})`
          : error.keyword === 'type' && nullable.has(error.instancePath)
            ? ' or null'
            : ''
      return `${error.instancePath || '/'} ${error.message}${extra}`
    })
}

/**
 * What is wrong with a run summary, one line per problem; none when it is valid.
 * @param {unknown} summary
 * @returns {string[]}
 */
export function summaryProblems(summary) {
  return problemsAgainst(SUMMARY_SCHEMA_FILE, summary)
}

/**
 * What is wrong with an experiment summary, one line per problem; none
 * when it is valid.
 * @param {unknown} summary
 * @returns {string[]}
 */
export function experimentSummaryProblems(summary) {
  return problemsAgainst(EXPERIMENT_SUMMARY_SCHEMA_FILE, summary)
}

/**
 * Throws when a run summary does not follow the schema, naming each problem.
 * @param {unknown} summary
 * @param {string} where   what the summary is: named in the error
 */
export function assertValidSummary(summary, where) {
  const problems = summaryProblems(summary)
  if (problems.length > 0) throw new Error(`${where} does not follow docs/summary.schema.json: ${problems.join('; ')}`)
}

/**
 * Throws when an experiment summary does not follow the schema, naming
 * each problem.
 * @param {unknown} summary
 * @param {string} where   what the summary is: named in the error
 */
export function assertValidExperimentSummary(summary, where) {
  const problems = experimentSummaryProblems(summary)
  if (problems.length > 0) {
    throw new Error(`${where} does not follow docs/experiment-summary.schema.json: ${problems.join('; ')}`)
  }
}

/**
 * A run's summary.json, read and checked against the schema.
 * @param {string} file
 * @returns {Promise<any>}
 */
export async function readRunSummary(file) {
  const summary = JSON.parse(await readFile(file, 'utf8'))
  assertValidSummary(summary, file)
  return summary
}

/**
 * An experiment's summary.json, read and checked against its schema.
 * @param {string} file
 * @returns {Promise<any>}
 */
export async function readExperimentSummary(file) {
  const summary = JSON.parse(await readFile(file, 'utf8'))
  assertValidExperimentSummary(summary, file)
  return summary
}
