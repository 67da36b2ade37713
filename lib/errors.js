// The errors of the whole program, by what went wrong. Each kind has a stable
// code, defined once in ERROR_CODES below with what it means and what the user
// can do: docs/errors.md is generated from that table, and the CLI derives its
// exit codes from it (lib/cli/exit-codes.js). Code that wraps another error
// passes it as `cause`, so that its stack is kept.
//
// As with Node's own errors (a TypeError with code ERR_INVALID_ARG_TYPE), the
// name is the family, InputError or RuntimeError, and the code says which
// kind: code that checks for an InputError by its name still finds one.

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
export const WARNING_CODES = /** @type {const} */ ({})

/** @typedef {keyof typeof ERROR_CODES} ErrorCode */
/**
 * The codes of a family.
 * @template {keyof typeof ERROR_FAMILIES} F
 * @typedef {{ [K in ErrorCode]: (typeof ERROR_CODES)[K]['family'] extends F ? K : never }[ErrorCode]} CodeOf
 */
/** @typedef {CodeOf<'input'>} InputCode */
/** @typedef {CodeOf<'runtime'>} RuntimeCode */
/** @typedef {{ cause?: unknown }} ErrorOptions */

/** The base of the program's own errors: a message for the user and a stable code. */
export class PgloadgenError extends Error {
  /**
   * @param {string} message  one line the user can act on
   * @param {ErrorCode} code  a code of ERROR_CODES
   * @param {ErrorOptions} [options]
   */
  constructor(message, code, options) {
    super(message, options)
    this.name = 'PgloadgenError'
    /** @type {ErrorCode} */
    this.code = code
  }
}

// Something the user gave is invalid: a flag, a value, a URL, a file. Found
// before anything touches a database, as far as it can be. The code says
// which kind: new InputError(message, { code: 'PGLG_INVALID_VALUE' }).
export class InputError extends PgloadgenError {
  /**
   * @param {string} message
   * @param {ErrorOptions & { code?: InputCode }} [options]
   */
  constructor(message, options) {
    super(message, options?.code ?? 'PGLG_INVALID_INPUT', options)
    this.name = 'InputError'
  }
}

// An experiment plan or a sidecar schedule that cannot be run as written.
export class InvalidPlanError extends InputError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_INVALID_PLAN' })
  }
}

// A workload that cannot be used: a module that fails to load or breaks the
// contract, a pgbench script that does not parse, settings it refuses.
export class InvalidWorkloadError extends InputError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_INVALID_WORKLOAD' })
  }
}

// A destructive action the user did not confirm (init over rows without
// --yes, drop-partitions without yes: true): nothing was changed.
export class RefusedActionError extends InputError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_REFUSED_DESTRUCTIVE' })
  }
}

// A failure of the environment while doing what was asked: a schema that
// could not be prepared, a snapshot that failed, a server that would not
// start. The code says which kind.
export class RuntimeError extends PgloadgenError {
  /**
   * @param {string} message
   * @param {ErrorOptions & { code?: RuntimeCode }} [options]
   */
  constructor(message, options) {
    super(message, options?.code ?? 'PGLG_RUNTIME_FAILURE', options)
    this.name = 'RuntimeError'
  }
}

// The PostgreSQL server could not be reached, refused the connection, or
// the connection broke while a control statement ran.
export class ServerUnavailableError extends RuntimeError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_SERVER_UNAVAILABLE' })
  }
}

// A program or package the lab needs is not installed (kubectl, zfs, an
// embedded PostgreSQL major).
export class MissingToolError extends RuntimeError {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, { ...options, code: 'PGLG_MISSING_TOOL' })
  }
}

/** Every class above, for the CLI's mapping and the docs' check. */
export const ERROR_CLASSES = [
  InputError,
  InvalidPlanError,
  InvalidWorkloadError,
  RefusedActionError,
  RuntimeError,
  ServerUnavailableError,
  MissingToolError
]

/**
 * The same kind of error as err, with the same code, a new message (err
 * prefixed with where it was found, say) and err as its cause.
 * @template {PgloadgenError} E
 * @param {E} err
 * @param {string} message
 * @returns {E}
 */
export function rephrased(err, message) {
  const Kind = /** @type {new (message: string, options?: ErrorOptions & { code?: ErrorCode }) => E} */ (
    err.constructor
  )
  return new Kind(message, { cause: err, code: err.code })
}

/**
 * err as an error of Kind when it is an InputError of a more general kind:
 * for the entry of a parser whose inner checks throw InputError (a plan's
 * fields, a workload's settings). The message is kept, err is the cause.
 * @param {unknown} err
 * @param {new (message: string, options?: ErrorOptions) => InputError} Kind
 * @returns {unknown}
 */
export function reclassified(err, Kind) {
  // not `err instanceof Kind`: with Kind an InputError, the type checker would narrow err to never
  if (!(err instanceof InputError) || Object.prototype.isPrototypeOf.call(Kind.prototype, err)) return err
  return new Kind(err.message, { cause: err })
}

/**
 * The family of a code: input or runtime.
 * @param {ErrorCode} code
 * @returns {keyof typeof ERROR_FAMILIES}
 */
export function familyOf(code) {
  return ERROR_CODES[code].family
}
