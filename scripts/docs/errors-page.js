import { ERROR_CLASSES, ERROR_CODES, ERROR_FAMILIES, WARNING_CODES } from '../../lib/errors.js'
import { SERVER_ERROR_CODES } from '../../lib/pg/server-errors.js'
import { code, generatedHeader, table } from './markdown.js'

// docs/errors.md: the tables of codes of lib/error-codes.js, between the prose
// that says how the families and the control connections behave.

const INTRO = `pgloadgen's own errors are defined in \`lib/errors.js\`, and their codes
once each in one table, \`ERROR_CODES\` of \`lib/error-codes.js\`, from which
this page is generated. Each error has a stable code, which scripts may rely
on; the message is for people and may be reworded. Code that wraps another error keeps it as \`cause\`.

Only the CLI decides how the process exits: \`lib/cli/exit-codes.js\` gives
each code the exit code of its family, and the CLI prints the message on one
line, \`pgloadgen: …\`, on stderr. With \`--log-level debug\` (or
\`LOG_LEVEL=debug\`) it also prints the stack of the error and of every error
in its cause chain.

Any other error (one without a code, which is a bug or a failure nothing
expected) is printed as \`pgloadgen error: unexpected error: …\` and exits 1.
A failed \`--threshold\` is not an error: the run ends normally and exits 3.`

const FAMILIES = `The codes form two families, so that code which catches one catches every
kind in it: an error of the input family is an \`InputError\` and exits 2,
one of the runtime family a \`RuntimeError\` and exits 1. A few kinds have
classes of their own: \`InvalidPlanError\`, \`InvalidWorkloadError\` and
\`RefusedActionError\` are \`InputError\`s; \`ServerUnavailableError\` and
\`MissingToolError\` are \`RuntimeError\`s. All are \`PgloadgenError\`s, whose
\`code\` property holds the code. As with Node's own errors, an error's
\`name\` is its family (\`InputError\` or \`RuntimeError\`) and its code says
which kind it is: \`--log-level debug\` shows both,
\`InputError [PGLG_INVALID_PLAN]: …\`.

A plan, a schedule and a workload are checked field by field: the field's
check throws the finer code (\`PGLG_INVALID_NUMBER\`, say), and the plan's
parser reports it as \`PGLG_INVALID_PLAN\` with the field's error as its
cause.`

const CONTROL = `## Control connections

The short connections pgloadgen opens for control work (a \`VACUUM\` of the
sidecar, \`CREATE DATABASE\` on the embedded server, \`init\`'s checks) all go
through \`lib/pg/control-client.js\`. A connection that cannot be made is a
\`PGLG_SERVER_UNAVAILABLE\` error whose message is the driver's and whose
cause is the driver's error. A connection the server ends while it is idle
(a restart, \`pg_terminate_backend\`) does not stop the process: it is logged
as a warning, \`pgloadgen warn [PGLG_W_CONTROL_LOST]: control connection NAME lost: …\`,
and the next statement on it fails.`

const SERVER_ERRORS = `## The server's errors

An error of node-postgres, of the server or of the socket under them that
ends a command (a connection that cannot be made, a schema that cannot be
prepared, \`init\`) gets its code from one table,
\`SERVER_ERROR_CODES\` of \`lib/pg/server-errors.js\`, by its SQLSTATE, its
SQLSTATE's class or its errno; one the table does not name keeps the code of
what failed (\`PGLG_SCHEMA_FAILED\`, say). A quota has no SQLSTATE of its own
and is found by its text. The failed requests of a load are counted, not
coded: they do not end it.`

const WARNINGS = `## Warnings

A warning does not stop what runs; its line shows its code,
\`pgloadgen warn [CODE]: …\`, so that a script can find it.`

/** The class an error of each code is, by code. */
function classNames() {
  /** @type {Map<string, string>} */
  const names = new Map()
  for (const Kind of ERROR_CLASSES) names.set(new Kind('x').code, Kind.name)
  return names
}

export function errorsPage() {
  const names = classNames()
  const rows = Object.entries(ERROR_CODES).map(([name, entry]) => [
    code(name),
    code(names.get(name) ?? ERROR_FAMILIES[entry.family].className),
    ERROR_FAMILIES[entry.family].exitCode,
    entry.means,
    entry.action
  ])
  const warnings = Object.entries(WARNING_CODES).map(([name, entry]) => [code(name), entry.means, entry.action])
  return [
    generatedHeader('Errors', 'the tables of lib/error-codes.js'),
    INTRO,
    '',
    table(['code', 'class', 'exit code', 'what it means', 'what you can do'], rows),
    '',
    FAMILIES,
    '',
    CONTROL,
    '',
    SERVER_ERRORS,
    '',
    table(
      ['SQLSTATE, class or errno', 'code'],
      Object.entries(SERVER_ERROR_CODES)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, name]) => [code(key), code(name)])
    ),
    ...(warnings.length ? ['', WARNINGS, '', table(['code', 'what it means', 'what you can do'], warnings)] : []),
    ''
  ].join('\n')
}
