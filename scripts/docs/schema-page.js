import { readFile } from 'node:fs/promises'
import { code, generatedHeader, table } from './markdown.js'

// The reference pages of the JSON files pgloadgen writes, each from its
// JSON Schema, the schema the tests validate every such file against
// (test/helpers/summary-schema.js): docs/summary.md from
// docs/summary.schema.json (a run's summary), docs/experiment-summary.md
// from docs/experiment-summary.schema.json (an experiment's).

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
function typeOf(schema) {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/$defs/', '')
    return `[${name}](#${name.toLowerCase()})`
  }
  if (schema.oneOf) return schema.oneOf.map(typeOf).join(' or ')
  if (schema.enum) return `one of ${schema.enum.map(value => code(JSON.stringify(value))).join(', ')}`
  if (schema.const !== undefined) return code(JSON.stringify(schema.const))
  const types = [schema.type ?? 'any'].flat()
  return types
    .map(type => {
      if (type === 'array' && schema.items) return `list of ${typeOf(schema.items)}`
      const values = schema.additionalProperties
      if (type === 'object' && typeof values === 'object') return `map to ${typeOf(values)}`
      return type
    })
    .join(' or ')
}

/**
 * The description of a field: its own, else its definition's.
 * @param {Schema} schema
 * @param {Record<string, Schema>} defs
 */
function descriptionOf(schema, defs) {
  if (schema.description) return schema.description
  const ref = schema.$ref ?? schema.oneOf?.find(s => s.$ref)?.$ref
  return ref ? (defs[ref.replace('#/$defs/', '')]?.description ?? '') : ''
}

/**
 * The object with fields a field holds without naming a definition (in
 * place, in a list, in a map or as one of its kinds), and how its fields
 * are written after the field's name: .x, [].x, .*.x.
 * @param {Schema} schema
 * @returns {{ object: Schema, path: string } | null}
 */
function inlineObject(schema) {
  if (schema.properties) return { object: schema, path: '.' }
  const branch = schema.oneOf?.find(s => s.properties)
  if (branch) return { object: branch, path: '.' }
  const items = schema.items && inlineObject(schema.items)
  if (items) return { object: items.object, path: `[]${items.path}` }
  const values = typeof schema.additionalProperties === 'object' ? inlineObject(schema.additionalProperties) : null
  if (values) return { object: values.object, path: `.*${values.path}` }
  return null
}

/**
 * The rows of an object's fields, those of the objects they hold in place
 * after each, named by their path (a.b, a[].b, a.*.b).
 * @param {Schema} schema
 * @param {Record<string, Schema>} defs
 * @param {string} prefix
 * @returns {string[][]}
 */
function fieldRows(schema, defs, prefix = '') {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const row = [code(prefix + name), typeOf(field), required.has(name) ? 'yes' : '', descriptionOf(field, defs)]
    const inner = inlineObject(field)
    return [row, ...(inner ? fieldRows(inner.object, defs, `${prefix}${name}${inner.path}`) : [])]
  })
}

/**
 * The table of an object's fields.
 * @param {Schema} schema
 * @param {Record<string, Schema>} defs
 */
function fieldsTable(schema, defs) {
  return table(['field', 'type', 'always', 'description'], fieldRows(schema, defs))
}

/**
 * A page from a schema: its description, its fields, then each definition.
 * @param {{ title: string, schemaFile: string, about: string[] }} page
 *   schemaFile: under docs/; about: the lines that say what the fields
 *   marked "always" are, and what the others depend on
 * @returns {Promise<string>}
 */
export async function schemaPage({ title, schemaFile, about }) {
  /** @type {Schema} */
  const schema = JSON.parse(await readFile(new URL(`../../docs/${schemaFile}`, import.meta.url), 'utf8'))
  const defs = schema.$defs ?? {}
  const lines = [
    generatedHeader(title, `docs/${schemaFile}`),
    schema.description ?? '',
    '',
    `The schema, [${schemaFile}](${schemaFile}) (JSON Schema draft 2020-12), is what the tests`,
    'validate every summary against: a field the summary gains, loses or changes the type of fails them',
    'until the schema says so.',
    ...about,
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
  return (
    lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/\n+$/, '') + '\n'
  )
}

/** docs/summary.md: a run's summary.json. */
export function summaryPage() {
  return schemaPage({
    title: 'The run summary',
    schemaFile: 'summary.schema.json',
    about: [
      'Fields marked "always" are in every summary; the others depend on the run (open loop, --warmup, ' +
        '--record, merge).'
    ]
  })
}

/** docs/experiment-summary.md: an experiment's summary.json. */
export function experimentSummaryPage() {
  return schemaPage({
    title: 'The experiment summary',
    schemaFile: 'experiment-summary.schema.json',
    about: [
      'Fields marked "always" are in every summary; vacuum_cost and wraparound only when a run of the experiment has',
      "vacuum figures or an anti-wraparound record; a variant's statistics.ratios and a verdict's effect in the",
      "summaries written since the verdicts rest on Welch's interval. A field written a.b belongs to the object",
      'in a, a[].b to each object of the list a, a.*.b to each object of the map a. [experiments.md](experiments.md)',
      "says how the figures are used; a run's own summary is [summary.md](summary.md)."
    ]
  })
}
