// Where rendered manifests go: a new directory that `kubectl kustomize` and
// `kubectl apply -k` read, or, built by kubectl kustomize, stdout.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { InputError, RuntimeError, MissingToolError } from '../errors.js'
import { quote } from '../helpers/quote.js'

/**
 * Refuses a directory that exists and holds anything: a render never mixes
 * with an earlier one's files.
 * @param {string} dir
 */
export function checkOutputDir(dir) {
  if (!existsSync(dir)) return
  let entries
  try {
    entries = readdirSync(dir)
  } catch (err) {
    throw new InputError(`--out ${quote(dir)} is not a directory`, { code: 'PGLG_UNUSABLE_OUT_DIR', cause: err })
  }
  if (entries.length > 0) {
    throw new InputError(`--out ${quote(dir)} is not empty: give a new directory`, { code: 'PGLG_UNUSABLE_OUT_DIR' })
  }
}

/**
 * @param {string} dir
 * @param {Map<string, string | Buffer>} files   by relative path
 */
export async function writeDirectory(dir, files) {
  for (const [path, content] of files) {
    const target = join(dir, path)
    await mkdir(dirname(target), { recursive: true })
    await writeFile(target, content)
  }
}

/**
 * Builds the directory with `kubectl kustomize` into a stream.
 * @param {Map<string, string | Buffer>} files
 * @param {{ write: (s: string) => unknown }} stdout
 */
export async function writeBuilt(files, stdout) {
  const dir = await mkdtemp(join(tmpdir(), 'pgloadgen-k8s-'))
  try {
    await writeDirectory(dir, files)
    const { code, out, err } = await run('kubectl', ['kustomize', dir])
    if (code === null) {
      throw new MissingToolError(
        `without --out the manifests are built by kubectl kustomize, and kubectl cannot be run (${err}): install kubectl or give --out DIR`
      )
    }
    if (code !== 0) {
      throw new RuntimeError(`kubectl kustomize failed: ${err.trim().split('\n')[0]}`, { code: 'PGLG_TOOL_FAILED' })
    }
    stdout.write(out)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * @param {string} command
 * @param {string[]} args
 * @returns {Promise<{ code: number | null, out: string, err: string }>}
 */
function run(command, args) {
  return new Promise(resolve => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', chunk => {
      out += chunk
    })
    child.stderr.setEncoding('utf8').on('data', chunk => {
      err += chunk
    })
    child.on('error', error =>
      resolve({ code: null, out, err: /** @type {NodeJS.ErrnoException} */ (error).code ?? error.message })
    )
    child.on('close', code => resolve({ code: code ?? 1, out, err }))
  })
}
