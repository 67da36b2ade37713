// Writes lib/embedded/settings-by-major.json: for every server setting of
// the majors the lab runs, the first and last major that has it. Read off
// real servers, one of each major started in a scratch directory, from
// pg_settings (postgres --describe-config leaves out the settings not in
// the sample file, debug_io_direct among them). Run it after adding a major
// to lib/embedded/majors.js: node test/setup/settings-by-major.js
import { mkdtemp, rm, writeFile, chmod } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { MAJORS } from '../../lib/embedded/majors.js'
import { createLogger } from '../../lib/log.js'

const log = createLogger({ level: 'warn' })
/** @type {Map<string, number[]>} */
const seen = new Map()
for (const major of MAJORS) {
  const scratch = await mkdtemp(path.join(os.tmpdir(), `pgloadgen-settings-${major}-`))
  await chmod(scratch, 0o755)
  const server = new EmbeddedServer({
    dataDir: path.join(scratch, 'pgdata'),
    profileFile: resolveProfile('default'),
    major,
    log
  })
  try {
    const url = await server.start()
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const { rows } = await client.query('SELECT name FROM pg_settings')
    await client.end()
    for (const { name } of rows) seen.set(name, [...(seen.get(name) ?? []), major])
    process.stderr.write(`PostgreSQL ${major}: ${rows.length} settings\n`)
  } finally {
    await server.shutdown().catch(() => {})
    await rm(scratch, { recursive: true, force: true })
  }
}
/** @type {Record<string, [number, number]>} */
const table = {}
for (const [name, majors] of [...seen].sort(([a], [b]) => a.localeCompare(b))) {
  table[name] = [Math.min(...majors), Math.max(...majors)]
  const contiguous = majors.length === table[name][1] - table[name][0] + 1
  if (!contiguous) {
    process.stderr.write(`note: ${name} is missing from some majors between ${table[name][0]} and ${table[name][1]}\n`)
  }
}
const file = new URL('../../lib/embedded/settings-by-major.json', import.meta.url)
await writeFile(
  file,
  '{\n' +
    Object.entries(table)
      .map(([name, [from, to]]) => `  ${JSON.stringify(name)}: [${from}, ${to}]`)
      .join(',\n') +
    '\n}\n'
)
process.stderr.write(`wrote ${Object.keys(table).length} settings to lib/embedded/settings-by-major.json\n`)
