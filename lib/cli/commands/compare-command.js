import { InputError } from '../../errors.js'

// `pgloadgen compare A B [C …]`: recorded runs and experiment variants
// side by side, each against the first. The table goes to stdout (--json:
// the same figures as JSON instead); --html FILE also writes a page with
// their charts overlaid. Bad input is one line and exit 2, before anything
// is read past what the check needs.

/**
 * The options of pgloadgen compare.
 * @param {import('yargs').Argv} y
 */
export function compareBuilder(y) {
  return y
    .positional('entries', {
      type: 'string',
      array: true,
      describe:
        'run directories (pgloadgen run --record DIR) or experiment variants (EXPDIR:NAME or EXPDIR/variants/NAME); the first is the baseline'
    })
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'print the figures, ratios, intervals and verdicts as JSON on stdout instead of the table'
    })
    .option('html', {
      type: 'string',
      describe: "also write a self-contained page with the table and the entries' charts overlaid to this file"
    })
    .option('force', { type: 'boolean', default: false, describe: 'compare entries that ran different workloads' })
}

/**
 * @type {import('./action-commands.js').CommandRun}
 */
export async function compareCommand(args, { log, stdout }) {
  const entries = /** @type {unknown[]} */ (args.entries ?? []).map(String)
  if (entries.length < 2) {
    throw new InputError(
      `compare: give at least two entries (run directories or EXPDIR:VARIANT), the first the baseline; got ${entries.length}`,
      { code: 'PGLG_MISSING_VALUE' }
    )
  }
  if (args.html !== undefined && String(args.html).trim() === '') {
    throw new InputError('compare: --html must name a file', { code: 'PGLG_MISSING_VALUE' })
  }
  const { compareEntries } = await import('../../compare/compare.js')
  const { comparison, entries: read } = await compareEntries(entries, { force: args.force === true })
  if (args.html !== undefined) {
    const { writeComparePage } = await import('../../report/compare-page.js')
    await writeComparePage(String(args.html), comparison, read)
    log.info(`comparison page written to ${args.html}`)
  }
  if (args.json) {
    stdout.write(JSON.stringify(comparison, null, 2) + '\n')
    return 0
  }
  const [{ compareTable }, { coloursFor }] = await Promise.all([
    import('../../terminal/compare-table.js'),
    import('../../terminal/colours.js')
  ])
  const out = /** @type {{ write: (s: string) => unknown, isTTY?: boolean, columns?: number }} */ (stdout)
  const width = out.isTTY ? Math.max(60, out.columns ?? 80) : 80
  stdout.write(
    compareTable(comparison, { colours: coloursFor(out), width })
      .map(line => `${line}\n`)
      .join('')
  )
  return 0
}

/**
 * The command as main.js registers it.
 * @type {import('./action-commands.js').CommandModule}
 */
export const compareCommandModule = {
  command: 'compare <entries..>',
  describe:
    'compare recorded runs or experiment variants side by side, each against the first: figures, ratios, 95 % intervals and verdicts',
  builder: compareBuilder,
  run: compareCommand
}
