import { MAX_CONCURRENCY } from '../../config/run-settings.js'

// The fleet's flags and what configure() makes of them. haggar's own flags
// (gorsuch/haggar main.go) are -agents 100, -metrics 10000,
// -flush-interval 10s, -spawn-interval 10s, -jitter 10s and
// -cache_connections false: the offered load of a run with no flags is
// haggar's (100 × 10000 ÷ 10 s = 100K points/s). Two defaults differ: the
// agents start all at once (haggar's 10 s spawn takes 17 minutes to bring
// up 100 agents; --spawn-interval 10s --jitter 5s is its ramp), and each
// agent keeps its connection (--reconnect-per-flush is haggar's default).

// Bounds: the lab runs at most MAX_CONCURRENCY clients; an agent's series are
// registered and read back once, held in memory, and written per flush.
const MAX_AGENTS = MAX_CONCURRENCY
const MAX_METRICS = 1000000
// The lab runs the maintenance that makes partitions ahead this often
// (the module's maintainEvery); what is made ahead must outlast two passes.
export const MAINTAIN_EVERY_S = 5

/** @type {Record<string, import('../options.js').OptionSpec>} */
export const FLEET_OPTIONS = {
  agents: {
    type: 'integer',
    default: 100,
    min: 1,
    max: MAX_AGENTS,
    describe: 'agents in the fleet, each on its own connection (haggar -agents)'
  },
  'metrics-per-agent': {
    type: 'integer',
    default: 10000,
    min: 1,
    max: MAX_METRICS,
    describe: 'metrics each agent sends every flush (haggar -metrics)'
  },
  'flush-interval': {
    type: 'duration',
    default: '10s',
    describe: 'each agent sends all its metrics this often (haggar -flush-interval)'
  },
  'spawn-interval': {
    type: 'duration',
    default: '0',
    describe: 'a new agent starts this often; 0: all at once (haggar -spawn-interval)'
  },
  jitter: {
    type: 'duration',
    default: '0',
    describe:
      'each spawn gap is the spawn interval give or take up to this much, below the spawn interval (haggar -jitter)'
  },
  'reconnect-per-flush': {
    type: 'boolean',
    default: false,
    describe: 'each flush opens a connection of its own and closes it (haggar without -cache_connections)'
  },
  'partition-interval': {
    type: 'duration',
    describe:
      'partition fleet_points by range of time, one partition per this many whole seconds (default: one plain table)'
  },
  premake: {
    type: 'integer',
    default: 4,
    min: 1,
    max: 1000,
    describe: 'partitions kept made ahead of the current time (with --partition-interval)'
  },
  'series-registry': {
    type: 'choice',
    default: 'agent',
    choices: ['agent', 'setup'],
    describe:
      'when series are registered: by each agent as it starts (agent), or for the whole fleet before the load (setup)'
  }
}

/**
 * @typedef {object} FleetConfig
 * @property {number} agents
 * @property {number} metricsPerAgent
 * @property {number} flushIntervalS
 * @property {number} spawnIntervalS     0: all agents at once
 * @property {number} jitterS
 * @property {boolean} reconnectPerFlush
 * @property {number | null} partitionIntervalS   null: one plain table
 * @property {number} premake
 * @property {'agent' | 'setup'} seriesRegistry
 */

/**
 * Checks what the option parser cannot: relations between the flags.
 * Throws one line naming the flag.
 * @param {{ options: Record<string, unknown> }} given
 * @returns {FleetConfig}
 */
export function configureFleet({ options }) {
  const flushIntervalS = /** @type {number} */ (options.flushInterval)
  const spawnIntervalS = /** @type {number} */ (options.spawnInterval)
  const jitterS = /** @type {number} */ (options.jitter)
  const partitionIntervalS = /** @type {number | undefined} */ (options.partitionInterval) ?? null
  const premake = /** @type {number} */ (options.premake)
  if (!(flushIntervalS > 0)) throw new Error('--flush-interval: must be above 0')
  if (spawnIntervalS === 0 && jitterS > 0) {
    throw new Error('--jitter: agents start all at once (--spawn-interval 0); a jitter needs a spawn interval')
  }
  if (spawnIntervalS > 0 && jitterS >= spawnIntervalS) {
    throw new Error(`--jitter: must be below --spawn-interval (${spawnIntervalS} s), got ${jitterS} s`)
  }
  if (partitionIntervalS !== null) {
    if (!Number.isInteger(partitionIntervalS) || partitionIntervalS < 1) {
      throw new Error(`--partition-interval: a whole number of seconds, at least 1 s, got ${partitionIntervalS} s`)
    }
    if (premake * partitionIntervalS < 2 * MAINTAIN_EVERY_S) {
      throw new Error(
        `--premake: ${premake} partitions of ${partitionIntervalS} s reach ${premake * partitionIntervalS} s ahead, less than two maintenance passes (${2 * MAINTAIN_EVERY_S} s); make more ahead`
      )
    }
  }
  return {
    agents: /** @type {number} */ (options.agents),
    metricsPerAgent: /** @type {number} */ (options.metricsPerAgent),
    flushIntervalS,
    spawnIntervalS,
    jitterS,
    reconnectPerFlush: options.reconnectPerFlush === true,
    partitionIntervalS,
    premake,
    seriesRegistry: options.seriesRegistry === 'setup' ? 'setup' : 'agent'
  }
}

// 1/φ: the phases frac(k/φ) of agents 0, 1, 2, … are spread over the
// period as evenly as any prefix of a sequence can be, for any number of
// agents and as agents join: no two flush together unless there are many.
const INVERSE_GOLDEN_RATIO = (Math.sqrt(5) - 1) / 2

/**
 * When in each flush interval an agent flushes. haggar's agents flush one
 * interval after they start, so their phases are their start times; here
 * each agent gets its own phase whether the fleet starts at once or not.
 * @param {FleetConfig} config
 * @returns {(clientId: number) => number}
 */
export function agentPhase(config) {
  return clientId => ((clientId * INVERSE_GOLDEN_RATIO) % 1) * config.flushIntervalS
}
