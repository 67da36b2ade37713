// `npm run bench` with a wrong command line: one line naming the problem,
// exit code 2, and no server started (its data directory is not made).
import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { hermeticEnv } from '../helpers/cli.js'

const BENCH = fileURLToPath(new URL('../../benchmarks/run.js', import.meta.url))
const scratch = mkdtempSync(path.join(os.tmpdir(), 'pgloadgen-bench-args-'))
t.teardown(() => rmSync(scratch, { recursive: true, force: true }))
const dataDir = path.join(scratch, 'pgdata')

/**
 * @param {string[]} args
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function bench(args) {
  return new Promise(resolve => {
    execFile(
      process.execPath,
      [BENCH, '--data-dir', dataDir, ...args],
      { env: hermeticEnv(), timeout: 20000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr })
      }
    )
  })
}

const cases = [
  { args: ['--bogus'], problem: /^bench: Unknown option '--bogus' \(npm run bench -- --help\)$/ },
  {
    args: ['--rounds', '-1'],
    problem: /^bench: Option '--rounds' argument is ambiguous \(npm run bench -- --help\)$/
  },
  { args: ['--rounds', 'x'], problem: /^bench: --rounds must be a positive whole number$/ },
  { args: ['-d', '0'], problem: /^bench: --duration must be a positive whole number$/ },
  {
    args: ['--parts', 'manta,nope'],
    problem:
      /^bench: unknown part "nope" \(parts: manta, threads, builtins, copy, soak, ingest, answers, chaos, wire\)$/
  },
  { args: ['--json=yes'], problem: /^bench: Option '--json' does not take an argument/ },
  {
    args: ['--parts', 'copy', 'mysql://localhost/x'],
    problem: /^bench: PostgreSQL URL must start with postgres:\/\/ or postgresql:\/\//
  },
  {
    args: ['--profile', 'nope'],
    problem: /^bench: unknown PostgreSQL profile "nope" \(notes\/postgres\/ has .*bench.*lab/
  }
]

for (const { args, problem } of cases) {
  t.test(`bench ${args.join(' ')}`, async t => {
    const result = await bench(args)
    t.equal(result.code, 2, 'exit code 2')
    t.equal(result.stdout, '', 'nothing on stdout')
    const lines = result.stderr.split('\n').filter(Boolean)
    t.equal(lines.length, 1, `one line on stderr: ${JSON.stringify(result.stderr)}`)
    t.match(lines[0], problem, 'the line names the problem')
    t.notOk(existsSync(dataDir), 'no embedded server was started')
  })
}

const answerCases = [
  {
    args: ['answers', '--answer-parts', 'change-points,nope'],
    problem: /^bench answers: unknown part "nope" \(parts: change-points, /
  },
  { args: ['answers', '--busy=-1'], problem: /^bench answers: --busy must be a whole number, 0 or more$/ },
  { args: ['answers', '--busy', '-1'], problem: /^bench answers: Option '--busy' argument is ambiguous$/ },
  { args: ['answers', '--seed', 'x'], problem: /^bench answers: --seed must be a whole number$/ },
  { args: ['answers', '--bogus'], problem: /^bench answers: Unknown option '--bogus'$/ },
  { args: ['chaos', '--minutes', '1'], problem: /^bench chaos: --minutes must be a number, 2 or more$/ },
  { args: ['chaos', '--seed', '1.5'], problem: /^bench chaos: --seed must be a whole number$/ },
  { args: ['chaos', '--bogus'], problem: /^bench chaos: Unknown option '--bogus'$/ }
]

for (const { args, problem } of answerCases) {
  t.test(`bench ${args.join(' ')}`, async t => {
    const result = await new Promise(resolve => {
      execFile(process.execPath, [BENCH, ...args], { env: hermeticEnv(), timeout: 20000 }, (err, stdout, stderr) =>
        resolve({ code: err ? err.code : 0, stdout, stderr })
      )
    })
    t.equal(result.code, 2, 'exit code 2')
    t.equal(result.stdout, '', 'nothing on stdout')
    const lines = result.stderr.split('\n').filter(Boolean)
    t.equal(lines.length, 1, `one line on stderr: ${JSON.stringify(result.stderr)}`)
    t.match(lines[0], problem, 'the line names the problem')
  })
}

t.test('a server that cannot be reached: one line without the password, exit 1', async t => {
  const result = await bench(['--parts', 'copy', 'postgres://someone:s3cret@127.0.0.1:1/nowhere'])
  t.equal(result.code, 1, 'exit code 1: the input was well formed')
  const lines = result.stderr.split('\n').filter(Boolean)
  t.equal(lines.length, 1, `one line on stderr: ${JSON.stringify(result.stderr)}`)
  t.match(lines[0], /^bench: .*ECONNREFUSED/, 'the line says what went wrong')
  t.notMatch(result.stderr, 's3cret', 'and never the password')
  t.notOk(existsSync(dataDir), 'no embedded server was started')
})

t.test('bench --help says how to call it and starts nothing', async t => {
  const result = await bench(['--help'])
  t.equal(result.code, 0)
  t.match(
    result.stdout,
    /^usage: npm run bench -- \[--parts manta,threads,builtins,copy,soak,ingest,answers,chaos,wire\]/
  )
  t.match(result.stdout, /npm run bench -- PART \[URL\]/)
  t.equal(result.stderr, '')
  t.notOk(existsSync(dataDir), 'no embedded server was started')
})
