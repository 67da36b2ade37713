import { esc, keyValueTable } from './html.js'
import { redact } from './redact.js'

// Which server each variant ran on, for the experiment's summary.json and
// its page: the version, the profile and settings the plan gave, every
// setting as SHOW reported it at the start of the variant's first
// repetition, and which variants shared a prepared snapshot.

/**
 * @typedef {object} VariantServer
 * @property {string | null} version          as the server reported it
 * @property {number | null} major
 * @property {string | null} profile
 * @property {Record<string, unknown>} plan_settings   what the plan set over the profile
 * @property {Record<string, string>} settings          as SHOW reported them at the start
 * @property {string | null} snapshot         the prepare phase it rolled back to
 * @property {string[]} shares_snapshot_with
 */

/**
 * @param {import('../results/read.js').RunData[]} repetitions
 * @returns {VariantServer | null}
 */
export function variantServer(repetitions) {
  const info = /** @type {Record<string, any> | undefined} */ (repetitions[0]?.info)
  if (!info) return null
  const server = info.server ?? {}
  return {
    version: info.postgres_version ?? null,
    major: server.major ?? null,
    profile: server.profile ?? null,
    plan_settings: server.settings ?? {},
    settings: info.settings ?? {},
    snapshot: server.snapshot ?? null,
    shares_snapshot_with: server.shares_snapshot_with ?? []
  }
}

/**
 * The page's "Server settings": one table when every variant ran on the
 * same server settings; else a column per variant for what differs, then
 * what they share.
 * @param {Array<{ name: string, server?: VariantServer | null }>} variants   the summary's
 */
export function serversSection(variants) {
  const known = variants.filter(v => v.server)
  if (known.length === 0) return '<p class="lead">No server settings recorded.</p>'
  const rows = rowsOf(known)
  const differing = rows.filter(row => new Set(row.values).size > 1)
  const shared = Object.fromEntries(
    rows.filter(row => new Set(row.values).size === 1).map(row => [row.name, row.values[0]])
  )
  if (differing.length === 0) return keyValueTable(redact(shared))
  const snapshots = groupsLine(known)
  const differingRows = differing
    .map(row => `<tr><th>${esc(row.name)}</th>${row.values.map(value => `<td>${esc(value)}</td>`).join('')}</tr>`)
    .join('\n')
  return `<p class="lead">The variants ran on different servers. ${esc(snapshots)}</p>
<table class="kv"><thead><tr><th></th>${known.map(v => `<th>${esc(v.name)}</th>`).join('')}</tr></thead><tbody>
${differingRows}
</tbody></table>
<h3 style="margin-top:12px">Shared by every variant</h3>
${keyValueTable(redact(shared))}`
}

/**
 * The version, the snapshot and every setting, a value per variant ("–": not reported).
 * @param {Array<{ name: string, server?: VariantServer | null }>} variants
 */
function rowsOf(variants) {
  const servers = variants.map(v => /** @type {VariantServer} */ (v.server))
  const names = [...new Set(servers.flatMap(s => Object.keys(s.settings)))].filter(n => n !== 'server_version').sort()
  return [
    { name: 'PostgreSQL', values: servers.map(s => s.version ?? '–') },
    { name: 'profile', values: servers.map(s => s.profile ?? '–') },
    { name: 'prepared snapshot', values: servers.map(s => s.snapshot ?? '–') },
    ...names.map(name => ({ name, values: servers.map(s => s.settings[name] ?? '–') }))
  ]
}

/** @param {Array<{ name: string, server?: VariantServer | null }>} variants */
function groupsLine(variants) {
  /** @type {Map<string, string[]>} */
  const groups = new Map()
  for (const v of variants) {
    const key = v.server?.snapshot ?? '?'
    groups.set(key, [...(groups.get(key) ?? []), v.name])
  }
  return [...groups.values()]
    .map(names =>
      names.length > 1
        ? `${names.join(', ')} shared one prepared snapshot.`
        : `${names[0]} had a prepared snapshot of its own.`
    )
    .join(' ')
}
