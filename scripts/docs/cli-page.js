import { cliParser } from '../../lib/cli/main.js'
import { workloadOptionSpecs } from '../../lib/cli/workload-flags.js'
import { BUILTIN_WORKLOADS } from '../../lib/workloads/index.js'
import { code, generatedHeader, table } from './markdown.js'

// docs/cli.md: every command of the CLI, read from the parser main() runs
// with (lib/cli/main.js cliParser), never from a list of its own. yargs
// applies a command's builder only while that command is parsed, so each
// command is parsed once, without running it, and a middleware copies what
// the builder declared.

/**
 * What yargs holds of a command while it is parsed.
 * @typedef {object} Declared
 * @property {any} options            yargs' getOptions(), copied
 * @property {Record<string, string>} descriptions
 * @property {Record<string, any>} commands   its subcommands' handlers
 */

const OPTION_COLUMNS = ['option', 'type', 'default', 'choices', 'description']

/** Options every command has, listed once at the top. */
const GLOBAL = ['help', 'log-level']

/**
 * Parses a command line without running it and returns what its command declared.
 * @param {string[]} argv
 * @param {Record<string, import('../../lib/workloads/options.js').OptionSpec>} [workloadSpecs]
 * @returns {Promise<Declared>}
 */
async function declared(argv, workloadSpecs = {}) {
  /** @type {Declared | null} */
  let seen = null
  const parser = cliParser(argv, workloadSpecs, () => {})
    .fail(() => {})
    .exitProcess(false)
    // yargs passes its instance to a middleware too; its types leave it out
    .middleware(
      /** @type {any} */ (
        (/** @type {unknown} */ _args, /** @type {any} */ y) => {
          const internal = y.getInternalMethods()
          seen = {
            // the instance is reset after the parse: keep a copy of its state now
            options: JSON.parse(JSON.stringify(y.getOptions())),
            descriptions: { ...internal.getUsageInstance().getDescriptions() },
            commands: internal.getCommandInstance().getCommandHandlers()
          }
        }
      ),
      true
    )
  await parser.parseAsync()
  if (seen === null) throw new Error(`cli-page.js: pgloadgen ${argv.join(' ')} declared nothing`)
  return seen
}

/**
 * An option's description as yargs keeps it (help's own is marked).
 * @param {string | undefined} text
 */
function description(text) {
  return (text ?? '').replace(/^__yargsString__:/, '')
}

/**
 * @param {any} options
 * @param {string} key
 */
function typeOf(options, key) {
  const base = ['boolean', 'number', 'count', 'string'].find(type => options[type].includes(key)) ?? 'string'
  return options.array.includes(key) ? `${base}[]` : base
}

/**
 * @param {unknown} value
 */
function shownDefault(value) {
  if (value === undefined) return ''
  return code(typeof value === 'string' ? value : JSON.stringify(value))
}

/**
 * The options table of a command: those it declares beyond the global ones.
 * @param {Declared} command
 * @param {Set<string>} skipped   its arguments, and the options its parent command lists
 */
function optionRows(command, skipped) {
  const { options } = command
  const aliases = new Set(Object.values(/** @type {Record<string, string[]>} */ (options.alias)).flat())
  const hidden = new Set(options.hiddenOptions)
  const rows = []
  for (const key of Object.keys(options.key)) {
    if (aliases.has(key) || hidden.has(key) || skipped.has(key) || GLOBAL.includes(key)) continue
    const names = [key, ...(options.alias[key] ?? [])].map(name => (name.length === 1 ? `-${name}` : `--${name}`))
    const required = options.demandedOptions[key] !== undefined
    rows.push([
      names.map(code).join(', '),
      typeOf(options, key),
      shownDefault(options.defaultDescription[key] ?? options.default[key]),
      (options.choices[key] ?? []).map(code).join(', '),
      `${required ? '**required.** ' : ''}${description(command.descriptions[key])}`
    ])
  }
  return rows
}

/**
 * One command's section, and its subcommands' after it.
 * @param {string[]} path      the words that name it: ['snapshot', 'create']
 * @param {any} handler        its yargs command handler
 * @param {number} depth       its heading's level
 * @param {{ keys: Set<string>, from: string | null }} [inherited]
 *   the options of the commands it belongs to, and the nearest that lists some
 * @returns {Promise<string[]>}
 */
async function commandSection(path, handler, depth, inherited = { keys: new Set(), from: null }) {
  const command = await declared(path)
  const usage = ['pgloadgen', ...path.slice(0, -1), handler.original].join(' ')
  const heading = `${'#'.repeat(depth)} \`${usage}\``
  const lines = [heading, '', description(handler.description) || '(a group of commands)', '']
  const positional = [
    ...handler.demanded.map((/** @type {any} */ p) => ({ ...p, required: true })),
    ...handler.optional.map((/** @type {any} */ p) => ({ ...p, required: false }))
  ]
  const positionals = new Set(positional.flatMap(p => p.cmd))
  if (positional.length > 0) {
    lines.push(
      'Arguments:',
      '',
      table(
        ['argument', 'type', 'required', 'description'],
        positional.map(p => [
          code(p.variadic ? `${p.cmd[0]}..` : p.cmd[0]),
          typeOf(command.options, p.cmd[0]),
          p.required ? 'yes' : 'no',
          description(command.descriptions[p.cmd[0]])
        ])
      ),
      ''
    )
  }
  const rows = optionRows(command, new Set([...positionals, ...inherited.keys]))
  if (inherited.from !== null) lines.push(`With the options of \`pgloadgen ${inherited.from}\`.`, '')
  if (rows.length > 0) lines.push('Options:', '', table(OPTION_COLUMNS, rows), '')
  for (const [name, sub] of Object.entries(command.commands)) {
    const listed = {
      keys: new Set([...inherited.keys, ...Object.keys(command.options.key)]),
      from: rows.length > 0 ? path.join(' ') : inherited.from
    }
    lines.push(...(await commandSection([...path, name], sub, depth + 1, listed)))
  }
  return lines
}

/**
 * The flags of the built-in workloads: `run` and `capacity` take them once
 * -w names the workload.
 */
async function workloadFlagsSection() {
  const lines = [
    '## Flags of the built-in workloads',
    '',
    "With `-w NAME`, `run` and `capacity` take the workload's own options as flags too.",
    ''
  ]
  for (const name of Object.keys(BUILTIN_WORKLOADS)) {
    const specs = await workloadOptionSpecs(['run', '-w', name])
    const entries = Object.entries(specs)
    if (entries.length === 0) continue
    const bounds = (/** @type {import('../../lib/workloads/options.js').OptionSpec} */ spec) =>
      spec.min !== undefined || spec.max !== undefined ? ` (${spec.min ?? ''}…${spec.max ?? ''})` : ''
    lines.push(
      `### \`-w ${name}\``,
      '',
      table(
        OPTION_COLUMNS,
        entries.map(([flag, spec]) => [
          code(`--${flag}`),
          spec.type + bounds(spec),
          shownDefault(spec.default),
          (spec.choices ?? []).map(code).join(', '),
          spec.describe
        ])
      ),
      ''
    )
  }
  return lines
}

/**
 * The whole page.
 * @returns {Promise<string>}
 */
export async function cliPage() {
  const root = await declared([])
  const commands = Object.entries(root.commands)
  const lines = [
    generatedHeader('CLI reference', 'the command definitions (lib/cli/main.js cliParser and the builders it calls)'),
    'Usage: `pgloadgen <command> [options]`. Bad input is one line on stderr and exit code 2;',
    'a runtime failure, exit code 1.',
    '',
    '## Global options',
    '',
    table(
      ['option', 'type', 'description'],
      GLOBAL.map(key => [code(`--${key}`), typeOf(root.options, key), description(root.descriptions[key])])
    ),
    '',
    '## Commands',
    '',
    table(
      ['command', 'description'],
      commands.map(([name, handler]) => [
        `[\`${name}\`](#${anchor(`pgloadgen ${handler.original}`)})`,
        description(handler.description)
      ])
    ),
    ''
  ]
  for (const [name, handler] of commands) lines.push(...(await commandSection([name], handler, 2)))
  lines.push(...(await workloadFlagsSection()))
  return lines.join('\n').replace(/\n+$/, '') + '\n'
}

/**
 * The anchor GitHub gives a heading.
 * @param {string} heading
 */
function anchor(heading) {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-')
}
