// The wire fixtures the unit loop replays (test/fixtures/wire/*.hex) are
// still what PostgreSQL 15 sends and accepts: the recorder runs again into a
// scratch folder, and each new recording must equal the stored one, message
// for message, but for BackendKeyData (the backend's process id and secret,
// new at every connection). The scenarios' results, live, are those the unit
// test expects from the recordings.
import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { record, FIXTURES } from '../fixtures/wire/record.js'
import { SCENARIOS } from '../fixtures/wire/scenarios.js'
import { parseFixture, formatMessage, messageName } from '../helpers/wire-hex.js'
import { PG15_ADMIN_URL } from '../helpers/pg.js'
import { CHUNKINGS, replay } from '../helpers/wire-replay.js'

const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-wire-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

/**
 * A recording's lines, BackendKeyData's body left out.
 * @param {string} text
 */
function comparable(text) {
  return parseFixture(text).map(m => (messageName(m) === 'BackendKeyData' ? '< BackendKeyData' : formatMessage(m)))
}

const live = await record(PG15_ADMIN_URL, dir)

for (const scenario of SCENARIOS) {
  t.test(scenario.name, async t => {
    const stored = await readFile(path.join(FIXTURES, `${scenario.name}.hex`), 'utf8')
    const fresh = await readFile(path.join(dir, `${scenario.name}.hex`), 'utf8')
    // if not: node test/fixtures/wire/record.js records them again
    t.same(comparable(fresh), comparable(stored), 'the server sends what was recorded')
    const { results } = await replay(parseFixture(stored), scenario, CHUNKINGS['all at once'])
    t.same(live[scenario.name], results, "the live results are the replay's")
  })
}
