import { withTarget } from '../target-options.js'

/**
 * pgbench -i's options, with pgbench's letters.
 * @param {import('yargs').Argv} y
 */
export function initBuilder(y) {
  return withTarget(y)
    .option('scale', {
      alias: 's',
      type: 'string',
      default: '1',
      describe: 'scale factor: branches; 10 × tellers and 100000 × accounts'
    })
    .option('fillfactor', { alias: 'F', type: 'string', describe: 'fillfactor of the tables (10 to 100; default 100)' })
    .option('init-steps', {
      alias: 'I',
      type: 'string',
      describe:
        'steps, in order: d drop, t create, g client-side or G server-side generate, v vacuum, p primary keys, f foreign keys (default dtgvp)'
    })
    .option('foreign-keys', { type: 'boolean', default: false, describe: 'add foreign keys between the tables' })
    .option('unlogged-tables', {
      alias: 'unlogged',
      type: 'boolean',
      default: false,
      describe: 'create the tables UNLOGGED'
    })
    .option('partitions', { type: 'string', describe: 'partition pgbench_accounts into this many partitions' })
    .option('partition-method', { type: 'string', describe: 'range (default) or hash' })
    .option('tablespace', { type: 'string', describe: 'tablespace of the tables' })
    .option('index-tablespace', { type: 'string', describe: 'tablespace of the primary keys' })
    .option('n', { type: 'boolean', describe: "pgbench's -n, --no-vacuum: skip the vacuum step" })
    .option('vacuum', { type: 'boolean', hidden: true })
    .option('quiet', {
      alias: 'q',
      type: 'boolean',
      default: false,
      describe: 'progress every 5 s rather than every 100000 rows'
    })
    .option('yes', {
      type: 'boolean',
      default: false,
      describe: 'drop pgbench tables that hold rows (the d step) without asking'
    })
    .option('json', { type: 'boolean', default: false, describe: "print the steps' timings and row counts as JSON" })
}
