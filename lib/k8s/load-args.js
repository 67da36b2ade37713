// The flags of `pgloadgen run` given to `k8s render` after --, made to work in
// a pod: the files they name (a workload module, pgbench scripts, a
// schedule) go into the load's ConfigMap and the flags point at its mount;
// the flags the manifests set themselves are refused.
import { readFileSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import { InputError } from '../errors.js'
import { isWorkloadPath } from '../workloads/index.js'
import { quote } from '../helpers/quote.js'

// Where the pods see the load's ConfigMap.
export const LOAD_MOUNT = '/etc/pgloadgen/load'

// What the manifests decide, with why, for the one-line refusal.
const SET_BY_RENDER = new Map([
  ['instance', 'the Job gives each pod its index (--instances N)'],
  ['start-at', 'k8s render computes it (--start-in)'],
  ['http-host', 'the pods serve /metrics on 0.0.0.0:9800'],
  ['http-port', 'the pods serve /metrics on 0.0.0.0:9800'],
  ['p', 'the pods serve /metrics on 0.0.0.0:9800'],
  ['events', 'the pods write their events to their own volume'],
  [
    'record',
    'with --results-claim NAME each pod records to that volume (instance-I), for pgloadgen merge; without it each prints its summary (--json) to its log'
  ],
  ['data-dir', 'the pods run against the database of the Secret, never an embedded server'],
  ['profile', 'the pods run against the database of the Secret, never an embedded server'],
  ['pg-port', 'the pods run against the database of the Secret, never an embedded server'],
  ['disk-limit', 'the pods run against the database of the Secret, never an embedded server'],
  ['control-token', 'a token written in the manifests is no secret (live control of the pods is not set up)']
])

// The flags whose value names a file, by every name they are given with.
const FILE_FLAGS = new Map([
  ['workload', 'workload'],
  ['w', 'workload'],
  ['file', 'file'],
  ['f', 'file'],
  ['schedule', 'schedule']
])

// A ConfigMap holds at most 1 MiB, keys and all.
const MAX_CONFIGMAP_BYTES = 1024 * 1024

/**
 * @typedef {object} LoadFile
 * @property {string} key       name in the ConfigMap and under LOAD_MOUNT
 * @property {string} source    the path given on the command line
 * @property {Buffer} content
 */

/**
 * The load's flags with their files moved under LOAD_MOUNT, and the files.
 * A module needs package.json {"type": "module"} beside it in the pod (no
 * package.json there says otherwise): it is added when a .js file goes.
 * @param {readonly string[]} args   flags of pgloadgen run, without "run"
 * @returns {{ args: string[], files: LoadFile[] }}
 */
export function podLoadArgs(args) {
  /** @type {LoadFile[]} */
  const files = []
  /** @type {string[]} */
  const out = []
  for (let i = 0; i < args.length; i++) {
    const token = args[i]
    // Wherever it stands: a URL may hold a password, and manifests are no place for one.
    if (/postgres(ql)?:\/\//i.test(token)) {
      throw new InputError(
        "the run's flags after -- take no database URL: the pods read it from the Secret (--url-secret)",
        { code: 'PGLG_UNKNOWN_OPTION' }
      )
    }
    const flag = flagOf(token)
    if (flag === null) {
      if (i === 0 || !takesValue(args[i - 1])) {
        throw new InputError(`the run's flags after -- take no argument ${quote(token)}`)
      }
      out.push(token)
      continue
    }
    const why = SET_BY_RENDER.get(flag.name)
    if (why) throw new InputError(`${flag.typed} is not for the run's flags: ${why}`, { code: 'PGLG_UNKNOWN_OPTION' })
    const kind = FILE_FLAGS.get(flag.name)
    if (!kind) {
      out.push(token)
      continue
    }
    let value = flag.value
    if (value === null) {
      if (i + 1 >= args.length) throw new InputError(`${flag.typed} needs a value`, { code: 'PGLG_MISSING_VALUE' })
      value = args[++i]
    }
    out.push(`--${kind}=${moveFile(kind, value, files)}`)
  }
  if (files.some(file => file.key.endsWith('.js'))) {
    if (files.some(file => file.key === 'package.json')) {
      throw new InputError('a file named package.json cannot go with a workload module: the pods need their own', {
        code: 'PGLG_CONFLICTING_OPTIONS'
      })
    }
    files.push({ key: 'package.json', source: '(added)', content: Buffer.from('{ "type": "module" }\n') })
  }
  const bytes = files.reduce((sum, file) => sum + file.key.length + file.content.length, 0)
  if (bytes > MAX_CONFIGMAP_BYTES) {
    throw new InputError(`the load's files hold ${bytes} bytes, more than a ConfigMap holds (1 MiB)`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  return { args: out, files }
}

/**
 * The flag a token is, with its value when given as --name=value or -xVALUE;
 * null for a value.
 * @param {string} token
 * @returns {{ name: string, typed: string, value: string | null } | null}
 */
function flagOf(token) {
  const long = /^--([^=]+)(?:=(.*))?$/s.exec(token)
  if (long) {
    const name = long[1].replace(/^no-/, '')
    return { name, typed: `--${long[1]}`, value: long[2] ?? null }
  }
  const short = /^-([A-Za-z])(?:=?(.+))?$/s.exec(token)
  if (short) return { name: short[1], typed: `-${short[1]}`, value: short[2] ?? null }
  return null
}

/**
 * Whether a token is a flag followed by its value (so that the next token is
 * that value, not a stray argument). Boolean flags are the exception: yargs
 * parsed the same tokens with their types before this runs, so a value after
 * one was already refused there.
 * @param {string} token
 */
function takesValue(token) {
  const flag = flagOf(token)
  return flag !== null && flag.value === null
}

/**
 * Adds a flag's file to the load and returns the flag's value in the pod.
 * @param {string} kind         workload, file or schedule
 * @param {string} value
 * @param {LoadFile[]} files
 */
function moveFile(kind, value, files) {
  if (kind === 'workload' && !isWorkloadPath(value)) return value // a built-in
  let path = value
  let weight = ''
  if (kind === 'file') {
    // -f FILE@WEIGHT, as pgbench splits it: at the last @, when a number follows.
    const match = /^(.*)(@\d+(?:\.\d+)?)$/s.exec(value)
    if (match) [, path, weight] = match
  }
  let stat
  try {
    stat = statSync(path)
  } catch (err) {
    throw new InputError(`cannot read ${quote(path)} (--${kind}): no such file`, {
      code: 'PGLG_UNREADABLE_FILE',
      cause: err
    })
  }
  if (!stat.isFile()) {
    throw new InputError(
      `--${kind} ${quote(path)} is not a file: a ConfigMap holds files, not directories; give the module's one file`,
      { code: 'PGLG_UNREADABLE_FILE' }
    )
  }
  const key = basename(path)
  if (!/^[-._a-zA-Z0-9]+$/.test(key) || key === '.' || key === '..') {
    throw new InputError(`${quote(key)} cannot be a ConfigMap key: rename it to letters, digits, -, _ and .`, {
      code: 'PGLG_INVALID_NAME'
    })
  }
  const same = files.find(file => file.key === key)
  if (same && same.source !== path) {
    throw new InputError(
      `two files named ${quote(key)} (${quote(same.source)} and ${quote(path)}): a ConfigMap holds one of each name`,
      { code: 'PGLG_INVALID_NAME' }
    )
  }
  if (!same) files.push({ key, source: path, content: readFileSync(path) })
  return `${LOAD_MOUNT}/${key}${weight}`
}
