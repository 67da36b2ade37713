// The entry point of the compose file's `generator` service, which runs as N
// replicas (docker compose --profile scale up --scale generator=N). Compose
// gives a replica no index of its own, so each one finds it: the service's
// name resolves (Docker's DNS) to every replica's address, and a replica's
// index is the place of its own address among them, sorted. Then it runs
// `pgloadgen run --instance I/N --start-at T` with the service's command.
//
// PGLOADGEN_INSTANCES must be the N of --scale, and PGLOADGEN_START_AT one
// moment for all (ISO 8601 or epoch seconds), given when the replicas are
// created. A replica that cannot see N replicas before the start refuses.
import { lookup } from 'node:dns/promises'
import { networkInterfaces } from 'node:os'
import { fileURLToPath } from 'node:url'

const POLL_MS = 500

/**
 * The index of a replica among the service's addresses (sorted as numbers),
 * or null when none of its own addresses is among them.
 * @param {string[]} own        the replica's IPv4 addresses
 * @param {string[]} addresses  what the service's name resolves to
 */
export function instanceIndex(own, addresses) {
  const sorted = [...new Set(addresses)].sort((a, b) => ipv4Number(a) - ipv4Number(b))
  const index = sorted.findIndex(address => own.includes(address))
  return index === -1 ? null : index
}

/** @param {string} address */
function ipv4Number(address) {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0)
}

/**
 * @param {string} message
 * @returns {never}
 */
function refuse(message) {
  process.stderr.write(`pgloadgen instance: ${message}\n`)
  process.exit(2)
}

/**
 * The start moment in ms, for the deadline of the wait (pgloadgen run
 * checks the value itself).
 * @param {string} text
 */
function startMs(text) {
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : Date.parse(text)
}

async function main() {
  const instances = Number(process.env.PGLOADGEN_INSTANCES)
  const startAt = process.env.PGLOADGEN_START_AT ?? ''
  const service = process.env.PGLOADGEN_SERVICE || 'generator'
  if (!Number.isInteger(instances) || instances < 1) {
    refuse('set PGLOADGEN_INSTANCES to the number of replicas (the N of --scale generator=N)')
  }
  if (startAt === '') {
    refuse('set PGLOADGEN_START_AT to the moment every replica starts, e.g. PGLOADGEN_START_AT=$(( $(date +%s) + 60 ))')
  }
  const deadline = startMs(startAt)
  if (!Number.isFinite(deadline)) refuse(`PGLOADGEN_START_AT must be ISO 8601 or epoch seconds, got "${startAt}"`)
  const own = Object.values(networkInterfaces())
    .flat()
    .filter(nic => nic && nic.family === 'IPv4' && !nic.internal)
    .map(nic => /** @type {import('node:os').NetworkInterfaceInfo} */ (nic).address)

  /** @type {string[]} */
  let addresses
  for (;;) {
    addresses = await lookup(service, { all: true, family: 4 }).then(
      entries => entries.map(entry => entry.address),
      () => []
    )
    if (addresses.length > instances) {
      refuse(`${addresses.length} replicas of ${service}, more than PGLOADGEN_INSTANCES (${instances})`)
    }
    if (addresses.length === instances) break
    if (Date.now() >= deadline) {
      refuse(
        `${addresses.length} of ${instances} replicas of ${service} up at the start time: ` +
          `give --scale ${service}=${instances}, or a later PGLOADGEN_START_AT`
      )
    }
    await new Promise(resolve => setTimeout(resolve, POLL_MS))
  }
  const index = instanceIndex(own, addresses)
  if (index === null) {
    refuse(`none of this replica's addresses (${own.join(', ')}) is among ${service}'s (${addresses.join(', ')})`)
  }

  const { main: pgloadgen } = await import('../../lib/cli/main.js')
  process.exitCode = await pgloadgen([
    'run',
    '--instance',
    `${index}/${instances}`,
    '--start-at',
    startAt,
    ...process.argv.slice(2)
  ])
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
