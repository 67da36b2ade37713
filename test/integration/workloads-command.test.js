// pgloadgen workloads: the built-in workloads with their request types and
// default mixes, pgbench's built-in scripts among them; or what one module
// declares.
import t from 'tap'
import { runCli } from '../helpers/cli.js'

t.test('the built-ins, as JSON', async t => {
  const result = await runCli(['workloads', '--json'], { t })
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const listing = JSON.parse(result.stdout)
  t.same(
    listing.map((/** @type {any} */ w) => w.name),
    ['manta', 'timeseries', 'tsbs-cpu', 'tgres', 'fleet', 'pgbench']
  )
  const manta = listing[0]
  t.same(
    manta.types.map((/** @type {any} */ type) => type.name),
    ['insert_row', 'read_row', 'update_row', 'injected_error', 'fetch_max']
  )
  t.equal(
    manta.default_mix,
    'insert_row=60,read_row=20,update_row=18,injected_error=1,fetch_max=1',
    "manta's mix, as before"
  )
  t.equal(manta.types.find((/** @type {any} */ type) => type.name === 'injected_error').expected_error, '42883')
  t.same(
    listing[5].types.map((/** @type {any} */ type) => type.name),
    ['tpcb-like', 'simple-update', 'select-only'],
    "pgbench's built-in scripts"
  )
  const tsbs = listing[2]
  t.equal(tsbs.options.hosts.default, 100, "a workload's own options are listed")
  t.equal(tsbs.options['insert-method'].type, 'choice')
})

t.test('the built-ins, as text', async t => {
  const result = await runCli(['workloads'], { t })
  t.equal(result.code, 0)
  t.match(result.stdout, /^manta: /m)
  t.match(result.stdout, /default mix: insert_row=60,read_row=20,update_row=18,injected_error=1,fetch_max=1/)
  t.match(result.stdout, /^pgbench: /m)
  t.match(result.stdout, /pgloadgen init -s 10 && pgloadgen run -b tpcb-like/)
})

t.test('one module', async t => {
  const result = await runCli(['workloads', 'notes/workloads/job-queue.js', '--json'], { t })
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const listing = JSON.parse(result.stdout)
  t.equal(listing.name, 'job-queue')
  t.equal(listing.default_mix, 'enqueue=50,dequeue=48,peek=2')
  const broken = await runCli(['workloads', 'test/fixtures/workloads/no-types.js'], { t })
  t.equal(broken.code, 2, 'a broken module is bad input')
  t.match(broken.stderr, /^pgloadgen: workload .*no-types\.js: declares no request type [^\n]*\n$/)
})
