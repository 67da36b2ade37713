// docker-compose (Debian's v1, or v2) without a Docker engine: `config`
// validates and normalises the file; YAML is read through the Python YAML
// library docker-compose v1 itself depends on, so the tests need no YAML
// package of their own.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { installHint } from './tools.js'

/**
 * Runs docker-compose; error is set when it cannot be started at all.
 * @param {string[]} args
 * @param {string} cwd
 */
export function dockerCompose(args, cwd) {
  return spawnSync('docker-compose', args, {
    cwd,
    encoding: 'utf8',
    timeout: 60000,
    env: { ...process.env, COMPOSE_INTERACTIVE_NO_CLI: '1' }
  })
}

/** Why docker-compose cannot be run here, or null when it can. */
export function missingDockerCompose() {
  const probe = dockerCompose(['version'], process.cwd())
  if (probe.error)
    return (
      `docker-compose not found (${/** @type {any} */ (probe.error).code}), ` +
      `needed to check docker-compose.yml: ${installHint('docker-compose')}`
    )
  if (probe.status !== 0) return `docker-compose version failed: ${probe.stderr}`
  return null
}

/**
 * Parses YAML text into plain data (YAML 1.1 as PyYAML reads it, the same
 * parser docker-compose v1 uses).
 * @param {string} text
 * @returns {any}
 */
export function parseYaml(text) {
  // Debian's python3, the one docker-compose v1 runs on (python3-yaml), not
  // whichever python3 comes first on PATH.
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
  const result = spawnSync(python, ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], {
    input: text,
    encoding: 'utf8'
  })
  if (result.error || result.status !== 0) {
    throw new Error(
      `python3 with PyYAML (a dependency of docker-compose v1) could not parse YAML: ` +
        `${result.error ?? result.stderr}; ${installHint('python3-yaml')}`
    )
  }
  return JSON.parse(result.stdout)
}

/**
 * @typedef {object} Mount
 * @property {string} service
 * @property {'bind' | 'volume'} type
 * @property {string} source   absolute host path for binds, volume name otherwise
 * @property {string} target   path in the container
 * @property {boolean} readOnly
 */

/**
 * The mounts of every service of a normalised compose config, short or long
 * syntax.
 * @param {any} config   `docker-compose config` output, parsed
 * @returns {Mount[]}
 */
export function mountsOf(config) {
  /** @type {Mount[]} */
  const mounts = []
  const namedVolumes = new Set(Object.keys(config.volumes ?? {}))
  for (const [service, spec] of Object.entries(config.services ?? {})) {
    for (const volume of /** @type {any} */ (spec).volumes ?? []) {
      if (typeof volume === 'string') {
        const [source, target, mode = 'rw'] = volume.split(':')
        const isBind = !namedVolumes.has(source) && /^[./~]/.test(source)
        mounts.push({
          service,
          type: isBind ? 'bind' : 'volume',
          source,
          target,
          readOnly: mode.split(',').includes('ro')
        })
      } else {
        mounts.push({
          service,
          type: volume.type === 'bind' ? 'bind' : 'volume',
          source: volume.source,
          target: volume.target,
          readOnly: Boolean(volume.read_only)
        })
      }
    }
  }
  return mounts
}
