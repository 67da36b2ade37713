import { RUN_SETTINGS, defaultInWords } from '../config/run-settings.js'
import { CAPACITY_STEP_FIELDS } from '../capacity/plan-step.js'
import { ACTIONS, ACTION_FIELDS } from '../sidecar/actions.js'
import { RETENTION_FIELDS } from '../sidecar/retention-spec.js'
import { FIGURE_NAMES } from '../report/answer-figures.js'

// Every field of an experiment plan, each defined once: its name, its type
// in words, its default and what it means. The parser (plan.js,
// plan-prepare.js, plan-steps.js, plan-server.js) takes the names it accepts
// from here, so that a field cannot be read without being listed, and
// docs/plans.md is generated from here (scripts/docs/plans-page.js). A
// field's order is the order the page and the parser's messages give.

/**
 * @typedef {object} PlanField
 * @property {string} type        in words: "string", "duration", "list of steps"
 * @property {string} [default]   in words, when the field may be left out
 * @property {boolean} [required]
 * @property {string} describe
 */

/**
 * @typedef {object} PlanSection
 * @property {string} path        where the fields sit: "plan", "prepare", "variants[i].steps[j] (load)"
 * @property {string} describe
 * @property {Record<string, PlanField>} fields
 */

/**
 * The plan fields the run settings define (config/run-settings.js), with
 * their wording there.
 * @returns {Record<string, PlanField>}
 */
function runSettingFields() {
  /** @type {Record<string, PlanField>} */
  const fields = {}
  for (const spec of Object.values(RUN_SETTINGS)) {
    if (!spec.plan) continue
    const fallback = defaultInWords(spec)
    fields[spec.plan] = {
      type: spec.type === 'choice' ? `one of ${(spec.choices ?? []).join(', ')}` : spec.type,
      ...(fallback !== null && { default: fallback }),
      describe: `as \`--${spec.flag}\`: ${spec.describe}`
    }
  }
  return fields
}

/**
 * Fields whose names another module owns (the capacity search, the
 * sidecar's actions), each given its meaning here; a name without one is
 * a mistake the generated page's test finds.
 * @param {readonly string[]} names
 * @param {Record<string, PlanField>} meanings
 * @returns {Record<string, PlanField>}
 */
function owned(names, meanings) {
  /** @type {Record<string, PlanField>} */
  const fields = {}
  for (const name of names) {
    const field = meanings[name]
    if (!field) throw new Error(`plan-table.js: the plan field ${name} has no description`)
    fields[name] = field
  }
  return fields
}

const LOAD_STEP = {
  load: { type: 'duration', required: true, describe: "how long the variant's load runs (20s, 2m)" },
  concurrency: { type: 'integer', describe: 'the clients for this step and after (absolute)' },
  ramp: {
    type: 'integer',
    describe:
      'the clients to reach, in a straight line from those running over the step, as --stages moves them; not with concurrency'
  }
}

const CAPACITY_STEP = owned(CAPACITY_STEP_FIELDS, {
  capacity: {
    type: 'string or list of strings',
    required: true,
    describe:
      "the objectives, as --objective: p99<10ms, lag_p99<50ms; the variant's load is paused while the search runs (docs/capacity.md)"
  },
  start_rate: { type: 'number', default: "the capacity command's", describe: 'the first rate tried, requests/s' },
  max_rate: { type: 'number', default: "the capacity command's", describe: 'the highest rate tried, requests/s' },
  step_factor: {
    type: 'number',
    default: "the capacity command's",
    describe: 'how much each step raises the rate, above 1, at most 100'
  },
  resolution: {
    type: 'number',
    default: "the capacity command's",
    describe: 'the relative width the search narrows the capacity to, above 0, at most 10'
  },
  repeats: { type: 'integer', default: "the capacity command's", describe: 'measurements of each rate, 1 to 100' },
  step: { type: 'duration', default: "the capacity command's", describe: 'how long each rate is held' },
  settle: {
    type: 'duration',
    default: "the capacity command's",
    describe: 'how long each rate runs before it is measured'
  },
  concurrency: {
    type: 'integer',
    default: "the capacity command's",
    describe: "the clients of the search's open loop"
  }
})

/**
 * The fields of each kind of step, by kind; exactly one kind per step.
 * @type {Readonly<Record<'load' | 'action' | 'wait' | 'concurrency' | 'capacity', Record<string, PlanField>>>}
 */
export const STEP_FIELDS = Object.freeze({
  load: LOAD_STEP,
  action: {
    action: { type: 'action', required: true, describe: 'a sidecar action, started while the load runs (see action)' }
  },
  wait: {
    wait: {
      type: 'string',
      required: true,
      describe: 'action: until the actions started end; or a condition like "dead_fraction(test_table) < 0.05"'
    },
    timeout: { type: 'duration', default: '3600 s', describe: 'how long the wait may last' }
  },
  concurrency: {
    concurrency: {
      type: 'integer or factor',
      required: true,
      describe: 'the clients from now on: a number, or a factor of those running like x2 or x0.5'
    }
  },
  capacity: CAPACITY_STEP
})

const ACTION = owned(['action', ...ACTION_FIELDS, ...RETENTION_FIELDS], {
  action: { type: `one of ${ACTIONS.join(', ')}`, required: true, describe: 'what to do' },
  table: { type: 'string', describe: 'the table it works on' },
  freeze: { type: 'boolean', describe: 'vacuum: VACUUM (FREEZE)' },
  full: { type: 'boolean', describe: 'vacuum: VACUUM (FULL)' },
  analyze: { type: 'boolean', describe: 'vacuum: VACUUM (ANALYZE)' },
  verbose: { type: 'boolean', describe: 'vacuum, analyze: VERBOSE' },
  fillfactor: {
    type: 'integer',
    describe: "fillfactor: the table's new fillfactor (10 to 100); rows placed from then on get it"
  },
  cost_delay: {
    type: 'number or duration',
    describe: 'vacuum: its vacuum_cost_delay (0 to 100 ms; "20ms" or a number of ms): throttled as autovacuum is'
  },
  by: { type: 'integer or text', describe: 'age-xids: transaction IDs to spend (2000000, 2M)' },
  to_age: { type: 'integer or text', describe: 'age-xids: or spend until the table (table) or database is this old' },
  rate: { type: 'integer or text', describe: 'age-xids: at most this many a second' },
  parallel: { type: 'integer', default: '2', describe: 'age-xids: worker connections' },
  hold_lock: { type: 'string', describe: 'age-xids: a table whose SHARE UPDATE EXCLUSIVE lock it holds meanwhile' },
  older_than: { type: 'duration', describe: 'drop-partitions, delete: what is older than this goes (10m, 1h30m, 600)' },
  relative_to: {
    type: 'data or clock',
    default: 'data',
    describe: 'drop-partitions, delete: older than the newest time in the table, or than now'
  },
  batch: { type: 'integer', default: '10000', describe: 'delete: rows per transaction' },
  time_column: { type: 'string', default: 'time', describe: "delete: the column of the rows' times" },
  yes: { type: 'boolean', describe: 'drop-partitions, delete: must be true, since they remove data' }
})

/** @type {readonly PlanSection[]} */
export const PLAN_SECTIONS = Object.freeze([
  {
    path: 'plan',
    describe: 'The top level of a plan file (JSON or YAML).',
    fields: {
      name: {
        type: 'string',
        required: true,
        describe: "the experiment's name: letters, digits, dots, dashes and underscores"
      },
      description: { type: 'string', describe: 'what the experiment does, for people; not read' },
      question: {
        type: 'string',
        describe: 'the question the plan asks, one sentence: the report and the end of the run open with it'
      },
      expect: {
        type: 'expect or list of expect',
        describe: 'the effects the plan expects (see expect): the answer says whether each appeared'
      },
      server: {
        type: 'server',
        default: 'the embedded server, profile lab',
        describe: 'the server the variants run on (see server)'
      },
      workload: {
        type: 'string',
        default: 'manta',
        describe: "a built-in workload or a module's path relative to the plan"
      },
      options: { type: 'object', describe: "the workload's options, by name" },
      scripts: { type: 'list of strings', describe: 'pgbench script files, relative to the plan (as -f)' },
      builtins: { type: 'list of strings', describe: 'pgbench built-in scripts (as -b)' },
      defines: { type: 'object', describe: 'pgbench variables (as -D name=value)' },
      scale: { type: 'integer', describe: "pgbench's scale (as -s)" },
      prepare: {
        type: 'prepare',
        required: true,
        describe: 'the phase that fills the tables and takes the snapshot every variant starts from'
      },
      variants: {
        type: 'list of variants',
        required: true,
        describe: 'what is compared: each replayed from the snapshot'
      },
      matrix: { type: 'matrix', describe: 'lists whose product each variant is crossed with (embedded server only)' },
      repetitions: {
        type: 'integer',
        default: '3',
        describe: 'runs of each variant, interleaved; 3 is the fewest a confidence interval is computed from'
      },
      ...runSettingFields()
    }
  },
  {
    path: 'expect',
    describe:
      "An expected effect: a figure of one variant's repetitions, lower or higher than another variant's or than a fixed value. It appeared when the 95 % interval of the difference lies wholly on that side (docs/experiments.md#the-answer-first).",
    fields: {
      figure: {
        type: `one of ${FIGURE_NAMES.join(', ')}, or workload.NAME`,
        required: true,
        describe:
          "the figure, per repetition (docs/experiments.md#the-answer-first says where each is read); workload.NAME: a statistic of the workload's own, at the run's end"
      },
      variant: { type: 'string', required: true, describe: 'the variant whose figure moves (freeze-pg18)' },
      versus: {
        type: 'string or list of strings',
        describe: 'the variants it is compared with; with several, it must appear against each'
      },
      than: { type: 'number', describe: 'or a fixed value it is compared with (1: a ratio during / before)' },
      direction: { type: 'lower or higher', required: true, describe: 'which way the figure is expected to move' }
    }
  },
  {
    path: 'server (embedded)',
    describe: 'The embedded server pgloadgen starts, the default.',
    fields: {
      embedded: { type: 'boolean', describe: 'says that the server is the embedded one; not read' },
      profile: { type: 'string', default: 'lab', describe: 'a settings profile of notes/postgres/' },
      data_dir: { type: 'string', describe: 'where its data directory goes' },
      disk_limit: {
        type: 'object',
        describe: 'a slower disk, as --disk-limit: read_mbps, read_iops, write_mbps, write_iops'
      },
      version: { type: 'integer', default: 'the default major', describe: 'the PostgreSQL major, as --pg-version' },
      settings: { type: 'object', describe: "server settings over the profile's, by name" }
    }
  },
  {
    path: 'server (url)',
    describe: 'A server the lab manages but did not start.',
    fields: {
      url: { type: 'string', required: true, describe: 'its postgres:// URL' },
      data_dir: { type: 'string', required: true, describe: 'the data directory its snapshots are taken of' },
      snapshot_driver: { type: 'zfs or copy', default: 'copy', describe: 'how snapshots are taken' },
      dataset: { type: 'string', describe: 'zfs: the dataset of the data directory' }
    }
  },
  {
    path: 'prepare',
    describe: 'Load until rows, table_size or duration (one at least), run the actions, then snapshot.',
    fields: {
      pgbench_init: {
        type: 'pgbench_init',
        describe: "pgbench's tables, created and filled first (as pgloadgen init)"
      },
      rows: { type: 'integer', describe: "until the workload's table holds this many rows" },
      table_size: { type: 'size', describe: "until the workload's table is this large (10GB)" },
      duration: { type: 'duration', describe: 'until this much time has passed' },
      concurrency: { type: 'integer', default: "the plan's", describe: 'the clients of the phase' },
      mix: { type: 'mix', default: "the workload's filling mix, else its default", describe: "the phase's mix" },
      batches: {
        type: 'integer',
        default: '1',
        describe:
          'load rows in this many equal batches, the load paused after each while batch_actions run: the table aged as days of autovacuum age it'
      },
      batch_actions: {
        type: 'list of actions',
        describe: 'run after each batch, the last included, with the load paused (a VACUUM, an age-xids)'
      },
      actions: { type: 'list of actions', describe: 'run after the load, before the snapshot (a VACUUM, say)' },
      snapshot: { type: 'string', default: 'prepared', describe: "the snapshot's name" }
    }
  },
  {
    path: 'prepare.pgbench_init',
    describe: 'The options of pgloadgen init.',
    fields: {
      scale: { type: 'integer', describe: 'as -s' },
      fillfactor: { type: 'integer', describe: 'as -F' },
      foreign_keys: { type: 'boolean', describe: 'as --foreign-keys' },
      unlogged: { type: 'boolean', describe: 'as --unlogged-tables' },
      init_steps: { type: 'string', describe: 'as -I' },
      partitions: { type: 'integer', describe: 'as --partitions' },
      partition_method: { type: 'range or hash', describe: 'as --partition-method' }
    }
  },
  {
    path: 'variants[i]',
    describe: 'One variant: its steps, run after rolling back to the prepared snapshot.',
    fields: {
      name: { type: 'string', required: true, describe: 'letters, digits, dots, dashes and underscores; unique' },
      steps: { type: 'list of steps', required: true, describe: 'run in order (see the steps)' },
      description: { type: 'string', describe: 'for people; not read' },
      options: {
        type: 'object',
        describe: "the workload's options over the plan's: the variant runs on tables made afresh"
      },
      server: { type: 'variant server', describe: 'what the variant changes of the server' }
    }
  },
  {
    path: 'variants[i].server',
    describe: 'What a variant changes of the embedded server.',
    fields: {
      version: { type: 'integer', describe: 'the PostgreSQL major' },
      profile: { type: 'string', describe: 'a settings profile' },
      settings: { type: 'object', describe: "server settings over the plan's" }
    }
  },
  {
    path: 'matrix',
    describe: 'Lists whose product every variant is crossed with, named after it (freeze-pg14); at most 64 variants.',
    fields: {
      version: { type: 'list of integers', describe: 'PostgreSQL majors' },
      profile: { type: 'list of strings', describe: 'settings profiles' },
      'settings.NAME': { type: 'list', describe: 'values of the server setting NAME' }
    }
  },
  ...Object.entries(STEP_FIELDS).map(([kind, fields]) => ({
    path: `variants[i].steps[j] (${kind})`,
    describe: `A ${kind} step.`,
    fields
  })),
  {
    path: 'action',
    describe: 'A sidecar action, in a step or in prepare.actions.',
    fields: ACTION
  }
])

/**
 * The names of a section's fields, in order.
 * @param {string} path
 * @returns {string[]}
 */
export function fieldNames(path) {
  const section = PLAN_SECTIONS.find(s => s.path === path)
  if (!section) throw new Error(`plan-table.js: no section ${path}`)
  return Object.keys(section.fields)
}
