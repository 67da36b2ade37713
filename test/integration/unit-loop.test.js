// The unit loop (`npm run test:unit`, tap test/unit) needs no server, no root
// and no network: it runs here in a network namespace of its own, whose only
// interface (loopback) is down, so that no PostgreSQL nor anything else can
// be reached, as the unprivileged user nobody, in a copy of the checkout
// that nobody owns (tap writes its process records into the project). The
// probe before it shows the namespace is what it should be.
import t from 'tap'
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readdir, rm, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { REPO } from '../helpers/cli.js'

const run = promisify(execFile)
const NOBODY = 65534

// The whole unit suite runs inside this one file: alone it takes under a
// minute, but beside another file's load on a busy 2-core machine it took
// over the suite's 300 s per file. Still bounded, well within the CI's time.
t.setTimeout(15 * 60 * 1000)

if (process.getuid?.() !== 0) {
  throw new Error('the unit-loop test needs root: it makes a network namespace and drops to nobody')
}

// What the loop runs as: nobody, no groups, a bare environment (none of
// this process's tap variables), in a new network namespace.
const DROP = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--']
const PATH = `${path.dirname(process.execPath)}:/usr/bin:/bin`
const AS_NOBODY = ['unshare', '--net', '--', ...DROP, 'env', '-i', `PATH=${PATH}`]

// Who the loop runs as and what it can reach: every line must say so.
const PROBE = `
const net = require('node:net')
const os = require('node:os')
const up = Object.values(os.networkInterfaces()).flat().map(a => a.address)
console.log('uid ' + process.getuid() + ', addresses: ' + (up.join(' ') || 'none'))
const socket = net.connect(5432, '127.0.0.1')
socket.on('connect', () => { console.log('PostgreSQL reachable'); process.exit(1) })
socket.on('error', err => console.log('127.0.0.1:5432: ' + err.code))
`

const copy = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-unit-loop-'))
t.teardown(() => rm(copy, { recursive: true, force: true }))
// not what .gitignore keeps out: .pgloadgen holds the embedded servers' data
// directories (gigabytes after a bench), which the unit loop never reads
const LEFT_OUT = ['node_modules', '.git', '.tap', '.pgloadgen', 'coverage', 'test']
for (const entry of await readdir(REPO)) {
  if (LEFT_OUT.includes(entry)) continue
  await cp(path.join(REPO, entry), path.join(copy, entry), { recursive: true })
}
// the tests, without the records of earlier runs
const notArtifacts = (/** @type {string} */ src) => !src.includes(`${path.sep}artifacts`)
await cp(path.join(REPO, 'test'), path.join(copy, 'test'), { recursive: true, filter: notArtifacts })

// the dependencies are read where they are, if nobody can read them; a
// copy of its own otherwise
const tapPackage = path.join(REPO, 'node_modules', 'tap', 'package.json')
const readable = await run(DROP[0], [...DROP.slice(1), 'test', '-r', tapPackage]).then(
  () => true,
  () => false
)
if (readable) await symlink(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'))
else await cp(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'), { recursive: true })
// (chown -R changes a symbolic link, not what it points to)
await run('chown', ['-R', `${NOBODY}:${NOBODY}`, copy])

t.test('in the namespace, as nobody: no address, no PostgreSQL', async t => {
  const { stdout } = await run(AS_NOBODY[0], [...AS_NOBODY.slice(1), process.execPath, '-e', PROBE], { cwd: copy })
  t.match(stdout, /^uid 65534, addresses: none$/m, 'nobody, and no interface up')
  t.match(stdout, /^127\.0\.0\.1:5432: (ENETUNREACH|ECONNREFUSED|EHOSTUNREACH)$/m, 'nothing to connect to')
})

t.test('tap test/unit passes there', async t => {
  const tap = path.join(copy, 'node_modules', '.bin', 'tap')
  const result = await run(AS_NOBODY[0], [...AS_NOBODY.slice(1), `HOME=${copy}`, process.execPath, tap, 'test/unit'], {
    cwd: copy,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 14 * 60 * 1000,
    killSignal: 'SIGKILL'
  }).then(
    r => ({ code: 0, ...r }),
    err => ({ code: err.code, stdout: String(err.stdout), stderr: String(err.stderr) })
  )
  const totals = /^# \{ total: (\d+), pass: (\d+)(, skip: (\d+))? \}$/m.exec(result.stdout)
  t.equal(result.code, 0, `exit code (stderr: ${result.stderr.slice(-500)})`)
  t.ok(totals, 'the totals line')
  if (totals) {
    t.ok(Number(totals[1]) > 1000, `${totals[1]} assertions`)
    t.equal(Number(totals[1]), Number(totals[2]) + Number(totals[4] ?? 0), 'every one passes (or is a skip)')
  }
  t.notMatch(result.stdout, /^\s*not ok /m, 'no failure')
})
