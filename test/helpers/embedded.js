// A private embedded PostgreSQL (18, or the major asked for) for a test
// file, in a temporary data directory removed at the end.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { createLogger } from '../../lib/log.js'

/** A data directory nobody uses yet, removed in the test's teardown. */
export async function tempDataDir(/** @type {{ teardown: (fn: () => unknown) => void }} */ t) {
  // Directly under the temporary directory: the server user (postgres, when
  // we are root) must be able to reach it.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  return dataDir
}

/**
 * Starts an embedded server (initdb on first use, a few seconds), stopped in
 * the test's teardown.
 * @param {{ teardown: (fn: () => unknown) => void }} t
 * @param {{ dataDir?: string, profile?: string, major?: number }} [options]
 *   major: the PostgreSQL major (lib/embedded/majors.js), fetched when missing; default 18
 * @returns {Promise<{ server: EmbeddedServer, url: string, adminUrl: string, dataDir: string }>}
 */
export async function startEmbedded(t, { dataDir, profile = 'default', major } = {}) {
  const dir = dataDir ?? (await tempDataDir(t))
  const server = new EmbeddedServer({
    dataDir: dir,
    profileFile: resolveProfile(profile),
    log: createLogger({ level: 'warn' }),
    ...(major !== undefined && { major })
  })
  // Teardowns run in reverse order: the server stops before its directory goes.
  t.teardown(() => server.shutdown().catch(() => {}))
  const url = await server.start()
  return { server, url, adminUrl: server.connectionString('postgres'), dataDir: dir }
}
