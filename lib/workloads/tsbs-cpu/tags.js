import { Random } from './random.js'

// The ten tags of a TSBS host (pkg/data/usecases/devops/host.go): its name,
// a region and one of that region's datacenters, a rack of 100, an OS, an
// architecture, a team, one of 20 services in one of 2 versions, and an
// environment. TSBS draws them at random for each load; here they are drawn
// from the host's number, so host_7 has the same tags in every run and the
// unique index over the tags keeps one row per host however often the hosts
// are seeded.

export const TAG_COLUMNS = [
  'hostname',
  'region',
  'datacenter',
  'rack',
  'os',
  'arch',
  'team',
  'service',
  'service_version',
  'service_environment'
]

/** @type {Array<[string, string[]]>} */
const REGIONS = [
  ['us-east-1', ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1e']],
  ['us-west-1', ['us-west-1a', 'us-west-1b']],
  ['us-west-2', ['us-west-2a', 'us-west-2b', 'us-west-2c']],
  ['eu-west-1', ['eu-west-1a', 'eu-west-1b', 'eu-west-1c']],
  ['eu-central-1', ['eu-central-1a', 'eu-central-1b']],
  ['ap-southeast-1', ['ap-southeast-1a', 'ap-southeast-1b']],
  ['ap-southeast-2', ['ap-southeast-2a', 'ap-southeast-2b']],
  ['ap-northeast-1', ['ap-northeast-1a', 'ap-northeast-1c']],
  ['sa-east-1', ['sa-east-1a', 'sa-east-1b', 'sa-east-1c']]
]
const OS = ['Ubuntu16.10', 'Ubuntu16.04LTS', 'Ubuntu15.10']
const ARCH = ['x64', 'x86']
const TEAMS = ['SF', 'NYC', 'LON', 'CHI']
const ENVIRONMENTS = ['production', 'staging', 'test']
const RACKS = 100
const SERVICES = 20
const SERVICE_VERSIONS = 2

/**
 * The tag values of host number n, in TAG_COLUMNS order.
 * @param {number} n   0 for host_0
 * @returns {string[]}
 */
export function hostTags(n) {
  const random = new Random(0x7453_4253 ^ n)
  /** @template T @param {T[]} list */
  const pick = list => list[random.below(list.length)]
  const [region, datacenters] = pick(REGIONS)
  return [
    `host_${n}`,
    region,
    pick(datacenters),
    String(random.below(RACKS)),
    pick(OS),
    pick(ARCH),
    pick(TEAMS),
    String(random.below(SERVICES)),
    String(random.below(SERVICE_VERSIONS)),
    pick(ENVIRONMENTS)
  ]
}
