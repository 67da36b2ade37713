// Bad schedule files, read by loadSchedule as `run --schedule` and `sidecar
// --schedule` read them: each is refused with an InputError (exit 2) of one
// line that names the field and the problem (the same table as the CLI's
// test, test/integration/schedule-parse.test.js); a good one in YAML and in
// JSON gives the same rules. No server.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { InputError } from '../../lib/errors.js'
import { exitCodeFor } from '../../lib/cli/exit-codes.js'
import { loadSchedule } from '../../lib/sidecar/schedule.js'
import { BAD_SCHEDULES } from '../fixtures/schedules/bad-schedules.js'

const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-schedule-files-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

t.test('each bad schedule file: one line naming the problem, exit 2', async t => {
  for (const [i, c] of BAD_SCHEDULES.entries()) {
    const file = path.join(dir, `bad-${i}.${c.ext ?? 'yaml'}`)
    await writeFile(file, c.text)
    const err = await loadSchedule(file).then(
      () => null,
      err => err
    )
    t.ok(err instanceof InputError && exitCodeFor(err) === 2, `${c.name}: a usage error`)
    t.match(err?.message ?? '', c.problem, `${c.name}: names the problem`)
    t.notMatch(err?.message ?? '', /\n/, `${c.name}: one line`)
  }
  const nowhere = path.join(dir, 'nowhere.yaml')
  await t.rejects(loadSchedule(nowhere), { message: /cannot read schedule file .*nowhere\.yaml/ })
})

t.test('a good schedule, as YAML and as JSON', async t => {
  const now = new Date('2026-06-12T10:00:00Z')
  const yamlFile = path.join(dir, 'good.yaml')
  const jsonFile = path.join(dir, 'good.json')
  const yaml = 'actions:\n  - action: checkpoint\n    after: 1s\n  - action: analyze\n    table: t\n    every: 5m\n'
  await writeFile(yamlFile, yaml)
  const actions = [
    { action: 'checkpoint', after: '1s' },
    { action: 'analyze', table: 't', every: '5m' }
  ]
  await writeFile(jsonFile, JSON.stringify({ actions }))
  const fromYaml = await loadSchedule(yamlFile, now)
  t.match(fromYaml, [
    { trigger: 'after', afterS: 1 },
    { trigger: 'every', everyS: 300, spec: { table: 't' } }
  ])
  t.same(await loadSchedule(jsonFile, now), fromYaml, 'JSON gives the same rules')
})
