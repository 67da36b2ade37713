// A plan's question and expected effects (lib/experiment/plan-question.js):
// each mistake refused with one line naming its field, and every shipped
// plan states both.
import t from 'tap'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parsePlan, loadPlan } from '../../lib/experiment/plan.js'

const PLANS = fileURLToPath(new URL('../../notes/experiments/', import.meta.url))
const BASE = {
  name: 'q',
  server: { url: 'postgres://postgres@127.0.0.1:5432/test', data_dir: '/tmp/nowhere' },
  prepare: { rows: 1000 },
  variants: [
    { name: 'a', steps: [{ load: '1s' }] },
    { name: 'b', steps: [{ load: '1s' }] }
  ]
}
const OK = { figure: 'vacuum_wal_bytes', variant: 'b', versus: 'a', direction: 'lower' }

/** @param {Record<string, unknown>} extra */
const plan = extra => parsePlan({ ...BASE, ...extra }, { baseDir: PLANS })

t.test('a question and expected effects are read', async t => {
  const read = await plan({ question: 'Is b lower?', expect: [OK, { ...OK, versus: undefined, than: 1 }] })
  t.equal(read.question, 'Is b lower?')
  t.same(read.expect[0], { figure: 'vacuum_wal_bytes', variant: 'b', versus: ['a'], than: null, direction: 'lower' })
  t.same(read.expect[1].than, 1)
  t.same((await plan({ expect: { ...OK, figure: 'workload.my_stat' } })).expect[0].figure, 'workload.my_stat')
  t.same((await plan({})).expect, [], 'both are optional')
  t.equal((await plan({})).question, null)
})

t.test('each mistake is one line naming its field', async t => {
  const cases = [
    [{ question: 'two\nlines' }, /^question: one sentence/],
    [{ question: 3 }, /^question: expected a string/],
    [{ expect: [] }, /^expect: expected an effect/],
    [{ expect: { ...OK, figure: 'speed' } }, /^expect\.figure: unknown figure "speed"/],
    [{ expect: [{ ...OK, variant: 'c' }] }, /^expect\[0\]\.variant: no variant "c" \(the plan has a, b\)/],
    [{ expect: { ...OK, direction: 'down' } }, /^expect\.direction: lower or higher/],
    [{ expect: { ...OK, than: 1 } }, /^expect: give versus \(other variants\) or than/],
    [{ expect: { ...OK, versus: undefined } }, /^expect: give versus/],
    [{ expect: { ...OK, versus: ['a', 'b'] } }, /^expect\.versus: "b" against itself/],
    [{ expect: { ...OK, versus: undefined, than: 'x' } }, /^expect\.than: expected a number/],
    [{ expect: { ...OK, by: 2 } }, /^expect\.by: unknown field/]
  ]
  for (const [extra, message] of cases) {
    const err = await plan(/** @type {Record<string, unknown>} */ (extra)).then(
      () => null,
      e => e
    )
    t.ok(err, `${JSON.stringify(extra)} is refused`)
    t.match(err?.message, message)
    t.notOk(String(err?.message).includes('\n'), 'in one line')
  }
})

t.test('prepare.batches needs rows, and takes batch_actions', async t => {
  const read = await plan({ prepare: { rows: 100, batches: 4, batch_actions: [{ action: 'vacuum', table: 't' }] } })
  t.equal(read.prepare.batches, 4)
  t.same(read.prepare.batchActions, [{ action: 'vacuum', table: 't' }])
  await t.rejects(plan({ prepare: { duration: '5s', batches: 2 } }), /prepare\.batches: needs prepare\.rows/)
  await t.rejects(plan({ prepare: { rows: 1, batch_actions: {} } }), /prepare\.batch_actions: expected a list/)
  await t.rejects(plan({ prepare: { rows: 1, batch_actions: [{ action: 'nap' }] } }), /prepare\.batch_actions\[0\]/)
})

t.test('every shipped plan states its question and an expected effect', async t => {
  for (const file of (await readdir(PLANS)).filter(f => f.endsWith('.yaml'))) {
    const read = await loadPlan(path.join(PLANS, file))
    t.ok(read.question && /\?$/.test(read.question), `${file}: a question`)
    t.ok(read.expect.length >= 1, `${file}: an expected effect`)
  }
})
