import path from 'node:path'
import { EmbeddedServer } from '../embedded/server.js'
import { chooseServer } from '../embedded/server-choice.js'
import { parsePgUrl } from '../config/pg-url.js'
import { Snapshots } from '../snapshot/snapshots.js'
import { DiskThrottle } from '../lab/disk-throttle.js'

// The servers of an experiment: one per PostgreSQL major its variants run
// on (a data directory does not cross majors), each with its own prepare
// phase and snapshot. Variants on one major share that snapshot; one whose
// profile or settings differ from the snapshot's gets its configuration
// written into the rolled-back data directory before the server starts
// again, so it starts with its own settings and nothing else changes.

/**
 * @typedef {object} ServerGroup
 * @property {number | null} major          null: the plan's server by URL
 * @property {EmbeddedServer | null} server
 * @property {string} connectionString
 * @property {string} dataDir
 * @property {Snapshots} snapshots
 * @property {DiskThrottle | null} diskThrottle
 * @property {import('./plan-server.js').EffectiveServer | null} base   the server the prepare phase ran with
 * @property {string[]} variants           the variants that share its snapshot
 * @property {string} prepareDir           where its prepare phase is recorded
 */

/**
 * Starts (or reaches) every server the plan needs, in the order of the
 * variants. Groups started before a failure are in `opened` for the caller
 * to stop.
 * @param {import('./plan.js').Plan} plan
 * @param {string} outDir
 * @param {ServerGroup[]} opened   filled as servers start
 * @param {import('../log.js').Logger} log
 */
export async function openServerGroups(plan, outDir, opened, log) {
  if (plan.server.kind === 'url') {
    const dataDir = path.resolve(plan.server.dataDir)
    const snapshots = await Snapshots.open({
      dataDir,
      driver: plan.server.driver,
      dataset: plan.server.dataset ?? undefined,
      log
    })
    await snapshots.init()
    opened.push({
      major: null,
      server: null,
      connectionString: parsePgUrl(plan.server.url).connectionString,
      dataDir,
      snapshots,
      diskThrottle: null,
      base: null,
      variants: plan.variants.map(v => v.name),
      prepareDir: path.join(outDir, 'prepare')
    })
    return
  }
  /** @type {Map<number, import('./plan.js').Plan['variants']>} */
  const byMajor = new Map()
  for (const variant of plan.variants) {
    const major = /** @type {import('./plan-server.js').EffectiveServer} */ (variant.server).major
    byMajor.set(major, [...(byMajor.get(major) ?? []), variant])
  }
  const several = byMajor.size > 1
  const dataDirBase = path.resolve(plan.server.dataDir ?? path.join(outDir, 'pgdata'))
  for (const [major, variants] of byMajor) {
    // the plan's own server where a variant runs on it, else the first variant's
    const planLevel = { major, profile: plan.server.profile, settings: plan.server.settings }
    const base = /** @type {import('./plan-server.js').EffectiveServer} */ (
      variants.find(v => v.server && sameServer(v.server, planLevel))?.server ?? variants[0].server
    )
    const dataDir = several ? `${dataDirBase}-pg${major}` : dataDirBase
    const choice = await chooseServer({ pgVersion: major, profile: base.profile, settings: base.settings, dataDir })
    const server = new EmbeddedServer({
      dataDir,
      profileFile: choice.profileFile,
      log,
      major,
      adaptProfile: choice.adaptProfile
    })
    /** @type {ServerGroup} */
    const group = {
      major,
      server,
      connectionString: '',
      dataDir,
      snapshots: /** @type {any} */ (null),
      diskThrottle: null,
      base,
      variants: variants.map(v => v.name),
      prepareDir: path.join(outDir, several ? `prepare-pg${major}` : 'prepare')
    }
    opened.push(group)
    group.connectionString = await server.start()
    if (plan.server.diskLimit) {
      group.diskThrottle = await DiskThrottle.create({ dataDir, limit: plan.server.diskLimit, log })
      await group.diskThrottle.attach()
    }
    group.snapshots = await Snapshots.open({ dataDir, driver: 'copy', log })
    await group.snapshots.init()
    if (several) log.info(`PostgreSQL ${major}: variants ${group.variants.join(', ')} share its snapshot`)
  }
}

/**
 * The group a variant runs in.
 * @param {ServerGroup[]} groups
 * @param {string} variant
 */
export function groupOf(groups, variant) {
  const group = groups.find(g => g.variants.includes(variant))
  if (!group) throw new Error(`no server for variant ${variant}`)
  return group
}

/**
 * What to do while the rolled-back data directory's server is down: write
 * the variant's own configuration when it differs from the snapshot's.
 * @param {ServerGroup} group
 * @param {import('./plan.js').Plan['variants'][number]} variant
 * @returns {(() => Promise<void>) | undefined}
 */
export function configureFor(group, variant) {
  const own = variant.server
  if (!own || !group.server || !group.base || sameServer(own, group.base)) return undefined
  const server = group.server
  return async () => {
    const choice = await chooseServer({
      pgVersion: own.major,
      profile: own.profile,
      settings: own.settings,
      dataDir: null
    })
    server.profileFile = choice.profileFile
    server.adaptProfile = choice.adaptProfile
    await server.writeConf(/** @type {number} */ (server.port))
  }
}

/**
 * @param {import('./plan-server.js').EffectiveServer} a
 * @param {import('./plan-server.js').EffectiveServer} b
 */
export function sameServer(a, b) {
  return (
    a.major === b.major &&
    a.profile === b.profile &&
    JSON.stringify(sorted(a.settings)) === JSON.stringify(sorted(b.settings))
  )
}

/** @param {Record<string, unknown>} settings */
function sorted(settings) {
  return Object.fromEntries(Object.entries(settings).sort(([x], [y]) => x.localeCompare(y)))
}
