// The machine's CPU and who used it (recorder/host-cpu.js): a line of
// /proc/<pid>/stat read right, and a real busy child process seen as
// another process taking the CPU. Linux only.
import t from 'tap'
import { spawn } from 'node:child_process'
import { HostCpu, parseProcStat } from '../../lib/recorder/host-cpu.js'

t.test('a /proc/<pid>/stat line, a name with spaces and parentheses', async t => {
  const line =
    '4242 (npm exec (tap) x) R 17 4242 17 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0 123456 1000 10 ' +
    '18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0'
  t.same(parseProcStat(line), {
    pid: 4242,
    ppid: 17,
    name: 'npm exec (tap) x',
    state: 'R',
    ticks: 300,
    startS: 1234.56
  })
  t.equal(parseProcStat('garbage'), null)
})

t.test('a spinning child is among the busiest other processes', { skip: process.platform !== 'linux' }, async t => {
  const host = new HostCpu()
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
  t.teardown(() => {
    child.kill('SIGKILL')
  })
  // it must use some CPU between two samples; on a loaded machine it gets
  // a share only, so the test waits for a second of at least 10 % of a core
  host.sample()
  let seen = null
  for (let i = 0; i < 10 && !seen; i++) {
    await new Promise(resolve => setTimeout(resolve, 1000))
    const figures = host.sample()
    t.ok(figures && typeof figures.others_pct === 'number', 'others_pct each second')
    seen = figures?.top?.find(p => p.pid === child.pid && p.pct >= 10) ?? null
  }
  t.ok(seen, `the child (pid ${child.pid}) is named with its share (${JSON.stringify(seen)})`)
  t.equal(seen?.name, 'node')
})
