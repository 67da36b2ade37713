import { readFile } from 'node:fs/promises'
import { code, generatedHeader, table } from './markdown.js'

// docs/summary.md: the run summary's fields, from docs/summary.schema.json,
// the schema every summary the tests produce is validated against
// (test/helpers/summary-schema.js).

export const SCHEMA_FILE = new URL('../../docs/summary.schema.json', import.meta.url)

/**
 * @typedef {object} Schema
 * @property {string | string[]} [type]
 * @property {unknown[]} [enum]
 * @property {unknown} [const]
 * @property {string} [$ref]
 * @property {Schema[]} [oneOf]
 * @property {Schema} [items]
 * @property {Schema | boolean} [additionalProperties]
 * @property {Record<string, Schema>} [properties]
 * @property {string[]} [required]
 * @property {string} [description]
 * @property {string} [title]
 * @property {Record<string, Schema>} [$defs]
 */

/**
 * A schema's type in words, with links to the definitions it names.
 * @param {Schema} schema
 * @returns {string}
 */
function typeOf (schema) {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/$defs/', '')
    return `[${name}](#${name.toLowerCase()})`
  }
  if (schema.oneOf) return schema.oneOf.map(typeOf).join(' or ')
  if (schema.enum) return `one of ${schema.enum.map(value => code(JSON.stringify(value))).join(', ')}`
  if (schema.const !== undefined) return code(JSON.stringify(schema.const))
  const types = [schema.type ?? 'any'].flat()
  return types.map(type => {
    if (type === 'array' && schema.items) return `list of ${typeOf(schema.items)}`
    const values = schema.additionalProperties
    if (type === 'object' && typeof values === 'object') return `map to ${typeOf(values)}`
    return type
  }).join(' or ')
}

/**
 * The description of a field: its own, else its definition's.
 * @param {Schema} schema
 * @param {Record<string, Schema>} defs
 */
function descriptionOf (schema, defs) {
  if (schema.description) return schema.description
  const ref = schema.$ref ?? schema.oneOf?.find(s => s.$ref)?.$ref
  return ref ? defs[ref.replace('#/$defs/', '')]?.description ?? '' : ''
}

/**
 * The table of an object's fields.
 * @param {Schema} schema
 * @param {Record<string, Schema>} defs
 */
function fieldsTable (schema, defs) {
  const required = new Set(schema.required ?? [])
  const fields = Object.entries(schema.properties ?? {})
  return table(['field', 'type', 'always', 'description'], fields.map(([name, field]) => [
    code(name), typeOf(field), required.has(name) ? 'yes' : '', descriptionOf(field, defs)
  ]))
}

/**
 * The whole page.
 * @returns {Promise<string>}
 */
export async function summaryPage () {
  /** @type {Schema} */
  const schema = JSON.parse(await readFile(SCHEMA_FILE, 'utf8'))
  const defs = schema.$defs ?? {}
  const lines = [
    generatedHeader('The run summary', 'docs/summary.schema.json'),
    schema.description ?? '',
    '',
    'The schema, [summary.schema.json](summary.schema.json) (JSON Schema draft 2020-12), is what the tests',
    'validate every summary against: a field the summary gains, loses or changes the type of fails them',
    'until the schema says so.',
    'Fields marked "always" are in every summary; the others depend on the run (open loop, --warmup, --record, merge).',
    '',
    '## Fields',
    '',
    fieldsTable(schema, defs),
    ''
  ]
  for (const [name, def] of Object.entries(defs)) {
    lines.push(`## ${name}`, '', def.description ?? '', '')
    if (def.properties) lines.push(fieldsTable(def, defs), '')
    else lines.push(`A ${typeOf(def)}.`, '')
  }
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').replace(/\n+$/, '') + '\n'
}
