// A slower disk for the embedded server (lib/lab/disk-throttle.js) on a real
// PostgreSQL 18 under the io-bound profile (direct I/O, so every scan of a
// table larger than shared_buffers reads it from the device): a sequential
// scan takes as long as the limit says, the group's counters see the reads,
// backends started after the throttle are in the group too, and the group is
// gone at release, the server back where it was. Bad limits are refused with
// one line, exit 2, by run and by a plan. Needs root and cgroup v1's blkio
// or v2's io controller, as the throttle does.
import t from 'tap'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines } from '../helpers/cli.js'
import { query, withClient } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { DiskThrottle, checkDiskThrottle, parseDiskLimit } from '../../lib/lab/disk-throttle.js'
import { createLogger } from '../../lib/log.js'
import { InputError } from '../../lib/errors.js'

const log = createLogger({ level: 'warn' })
const canThrottle = await checkDiskThrottle(os.tmpdir()).then(
  () => true,
  err => err.message
)

t.test('limits: parsed from a plan or a flag, one line per mistake', async t => {
  t.same(parseDiskLimit({ read_mbps: 8, read_iops: 400 }, 'server.disk_limit'), {
    readBps: 8e6,
    readIops: 400,
    writeBps: null,
    writeIops: null
  })
  t.same(parseDiskLimit('read_mbps=2.5,write_iops=100', '--disk-limit'), {
    readBps: 2.5e6,
    readIops: null,
    writeBps: null,
    writeIops: 100
  })
  const bad = [
    [{ read_mbps: 0 }, /server\.disk_limit\.read_mbps: megabytes .* from 0.01/],
    [{ read_mbps: -3 }, /read_mbps: .*got -3/],
    [{ read_mbps: '8MB' }, /read_mbps: .*got "8MB"/],
    [{ read_iops: 2.5 }, /read_iops: .*whole number/],
    [{ read_iops: 0 }, /read_iops: .*whole number/],
    [{ reads: 8 }, /server\.disk_limit\.reads: unknown field \(known: read_mbps, read_iops, write_mbps, write_iops\)/],
    [{}, /give at least one of/],
    [[8], /expected an object/],
    ['read_mbps', /expected key=value pairs/]
  ]
  for (const [value, message] of bad) {
    t.throws(() => parseDiskLimit(value, 'server.disk_limit'), message, JSON.stringify(value))
    try {
      parseDiskLimit(value, 'server.disk_limit')
    } catch (err) {
      t.ok(err instanceof InputError && !err.message.includes('\n'), 'a usage error on one line')
    }
  }
})

t.test('without root: refused with one line', async t => {
  const getuid = process.getuid
  process.getuid = () => 1000
  t.teardown(() => {
    process.getuid = getuid
  })
  await t.rejects(checkDiskThrottle(os.tmpdir()), /^disk limit: needs root/)
})

t.test('bad input on the command line and in a plan: one line, exit 2', async t => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-disk-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const plan = path.join(dir, 'plan.yaml')
  const cases = [
    {
      args: ['run', '--disk-limit', 'read_mbps=0', '--data-dir', path.join(dir, 'pgdata'), '-d', '1'],
      problem: /--disk-limit\.read_mbps: megabytes/
    },
    {
      args: ['run', '--disk-limit', 'fast', '--data-dir', path.join(dir, 'pgdata'), '-d', '1'],
      problem: /--disk-limit: expected key=value pairs/
    },
    {
      args: ['run', 'postgres://u@127.0.0.1:1/db', '--disk-limit', 'read_mbps=8', '-d', '1'],
      problem: /--disk-limit: only for the embedded server/
    },
    {
      plan: 'server: { embedded: true, profile: io-bound, disk_limit: { read_mbps: 8, iops: 400 } }',
      problem: /server\.disk_limit\.iops: unknown field/
    },
    {
      plan: 'server: { url: "postgres://u@127.0.0.1:1/db", data_dir: /tmp/x, disk_limit: { read_mbps: 8 } }',
      problem: /server\.disk_limit: only for the embedded server/
    }
  ]
  for (const c of cases) {
    if (c.plan) {
      await writeFile(
        plan,
        `name: p\n${c.plan}\nworkload: manta\nprepare: { rows: 10 }\nvariants: [{ name: a, steps: [{ load: 1s }] }]\n`
      )
    }
    const result = await runCli(c.args ?? ['experiment', plan, '--out', path.join(dir, 'out')])
    t.equal(result.code, 2, `${c.problem}: exit 2`)
    const errorLines = lines(result.stderr)
    t.equal(errorLines.length, 1, `one line: ${JSON.stringify(result.stderr)}`)
    t.match(errorLines[0], c.problem)
    t.notOk(existsSync(path.join(dir, 'pgdata')) || existsSync(path.join(dir, 'out')), 'nothing made')
  }
})

t.test(
  'a throttled server reads at the limit, and the group goes at release',
  { skip: canThrottle === true ? false : canThrottle },
  async t => {
    const { url, dataDir } = await startEmbedded(t, { profile: 'io-bound' })
    // About 36 MB: larger than io-bound's 32 MB of shared buffers, so a scan
    // reads it from the disk every time (a ring of 256 kB for a large scan).
    await query(url, "CREATE TABLE big AS SELECT g AS id, repeat('x', 200) AS pad FROM generate_series(1, 150000) g")
    const bytes = Number((await query(url, "SELECT pg_relation_size('big') AS size")).rows[0].size)
    const scan = async () => {
      const started = Date.now()
      await query(url, 'SELECT count(*) FROM big')
      return (Date.now() - started) / 1000
    }
    const free = await scan()

    const limitMbps = 8
    const throttle = await DiskThrottle.create({
      dataDir,
      limit: parseDiskLimit({ read_mbps: limitMbps }, 'test'),
      log
    })
    t.teardown(() => throttle.release())
    const postmaster = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0])
    const home = await readFile(`/proc/${postmaster}/cgroup`, 'utf8')
    const moved = await throttle.attach()
    t.ok(moved > 3, `the postmaster and its children moved (${moved})`)
    const slow = await scan()
    // The kernel lets a short burst through; the rest goes at the limit.
    const expected = bytes / (limitMbps * 1e6)
    t.ok(
      slow > expected * 0.6,
      `a scan of ${(bytes / 1e6).toFixed(0)} MB took ${slow.toFixed(2)} s at ${limitMbps} MB/s ` +
        `(about ${expected.toFixed(1)} s expected; ${free.toFixed(2)} s unthrottled)`
    )
    t.ok(slow > free * 3, 'much slower than unthrottled')
    const counters = await throttle.counters()
    // the pages still in shared buffers from the first scan are not read again
    t.ok(
      counters.readBytes >= bytes * 0.75,
      `the group's counters saw the reads (${counters.readBytes} of ${bytes} bytes, ${counters.reads} reads)`
    )

    // A backend forked after the throttle is born in the group.
    await withClient(url, async client => {
      const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
      const procs = (await readFile(path.join(throttle.group, 'cgroup.procs'), 'utf8')).split('\n').map(Number)
      t.ok(procs.includes(pid), 'a new backend is in the group')
      t.ok(procs.includes(postmaster), 'the postmaster is in the group')
    })

    await throttle.release()
    t.notOk(existsSync(throttle.group), 'the group is removed at release')
    t.equal(await readFile(`/proc/${postmaster}/cgroup`, 'utf8'), home, 'the running server is back in its own group')
    const again = await scan()
    t.ok(again < slow / 3, `unthrottled again (${again.toFixed(2)} s)`)
    await throttle.release()
    t.pass('a second release does nothing')
  }
)
