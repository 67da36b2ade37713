// The progress line on a real terminal: pgloadgen run -P 1 in a detached
// tmux session of a fixed size (Debian's tmux), its pane captured as it
// runs. The line is redrawn in place (one progress line on the screen
// while the seconds go by), the end table comes under it, in colour; with
// NO_COLOR, the same without a colour.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { CLI, REPO, sleep } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import { requireTool } from '../helpers/tools.js'

const exec = promisify(execFile)
const TMUX = '/usr/bin/tmux'
requireTool(TMUX, 'tmux', ['-V'])
const db = await createTestDatabase(t, 'terminal_tmux')
// a server of its own, on a socket of its own, killed at the end
const SOCKET = `pgloadgen-test-${process.pid}`
const tmux = (/** @type {string[]} */ ...args) => exec(TMUX, ['-L', SOCKET, ...args], { cwd: REPO })
t.teardown(() => tmux('kill-server').catch(() => {}))

const PROGRESS = /^\d+ s: [\d.]+ requests\/s, p50 /

/**
 * Starts the run in a new detached session; the shell stays after it, so
 * that its last screen can be captured.
 * @param {string} name
 * @param {Record<string, string>} env
 */
async function startRun(name, env) {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`)
  // the test runner's hooks and variables stay out: a user's shell has none
  const command = [
    'env',
    '-u',
    'NODE_OPTIONS',
    '-u',
    'LOG_LEVEL',
    '-u',
    'NO_COLOR',
    '-u',
    'FORCE_COLOR',
    ...vars,
    process.execPath,
    CLI,
    'run',
    db.url,
    '-c',
    '2',
    '-d',
    '4',
    '-P',
    '1',
    '-p',
    '0',
    '--no-pg-stats'
  ]
  const shell = `${command.map(word => `'${word}'`).join(' ')}; echo "exit status $?"; sleep 120`
  await tmux('new-session', '-d', '-s', name, '-x', '100', '-y', '50', shell)
}

/**
 * @param {string} name
 * @param {boolean} [escapes]  with the colours' escape codes (-e)
 */
async function capture(name, escapes = false) {
  return (await tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', name)).stdout
}

/**
 * The ended run's screen with its escape codes. On a loaded machine one
 * capture has come back blank though the screen was not: it is taken again
 * until it shows the run's end, as the plain capture did.
 * @param {string} name
 */
async function captureEnd(name) {
  let screen = ''
  for (let tries = 0; tries < 10 && !/exit status \d+/.test(screen); tries++) {
    if (tries > 0) await sleep(200)
    screen = await capture(name, true)
  }
  return screen
}

/**
 * Captures the pane every 300 ms until the run has exited.
 * @param {string} name
 */
async function watch(name) {
  const screens = []
  const deadline = Date.now() + 30000
  while (Date.now() < deadline) {
    const screen = await capture(name)
    screens.push(screen)
    if (/^exit status \d+/m.test(screen)) return { screens, last: screen, coloured: await captureEnd(name) }
    await sleep(300)
  }
  throw new Error(`the run did not end; its screen:\n${screens.at(-1)}`)
}

const progressLines = (/** @type {string} */ screen) => screen.split('\n').filter(line => PROGRESS.test(line))

t.test('on a terminal: the progress line redrawn in place, then the table', async t => {
  await startRun('colour', { TERM: 'xterm-256color' })
  await startRun('plain', { TERM: 'xterm-256color', NO_COLOR: '1' })
  const [colour, plain] = await Promise.all([watch('colour'), watch('plain')])

  for (const [name, run] of Object.entries({ colour, plain })) {
    t.match(run.last, /^exit status 0$/m, `${name}: exit 0`)
    const seen = new Set()
    for (const screen of run.screens) {
      const shown = progressLines(screen)
      t.ok(shown.length <= 1, `${name}: never more than one progress line on the screen (${shown.length})`)
      for (const line of shown) seen.add(line.split(':')[0])
    }
    t.ok(seen.size >= 2, `${name}: the line showed several periods in turn (${[...seen].join(', ')})`)
    t.equal(progressLines(run.last).length, 1, `${name}: one progress line stays at the end`)
    t.match(
      run.last,
      /^type +done +failed +req\/s +p50 ms +p95 ms +p99 ms +max ms$/m,
      `${name}: the end table's header`
    )
    t.match(run.last, /^total +\d+ +\d+ +[\d.]+( +[\d.]+){4}$/m, `${name}: and its total row`)
    // the table is under the progress line
    const lines = run.last.split('\n')
    t.ok(
      lines.findIndex(line => PROGRESS.test(line)) < lines.findIndex(line => line.startsWith('total ')),
      `${name}: the table comes after the last progress line`
    )
  }
  t.match(colour.coloured, /\u001b\[/, 'a terminal gets colour') // eslint-disable-line no-control-regex
  // eslint-disable-next-line no-control-regex
  t.notMatch(plain.coloured, /\u001b\[[0-9;]*[1-9][0-9;]*m/, 'NO_COLOR: no colour at all')
})
