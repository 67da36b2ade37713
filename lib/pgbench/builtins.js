import { printable } from '../helpers/quote.js'
import { ScriptLoadError } from './errors.js'

// pgbench's built-in scripts, word for word (builtin_script in pgbench.c),
// with its row counts per unit of scale: 100000 accounts, 1 branch and 10
// tellers.

const ACCOUNTS = 100000
const BRANCHES = 1
const TELLERS = 10

const RANDOM_ROWS = `\\set aid random(1, ${ACCOUNTS} * :scale)
\\set bid random(1, ${BRANCHES} * :scale)
\\set tid random(1, ${TELLERS} * :scale)
\\set delta random(-5000, 5000)
`

/**
 * @typedef {object} BuiltinScript
 * @property {string} name
 * @property {string} description
 * @property {string} text
 */

/** @type {readonly BuiltinScript[]} */
export const BUILTIN_SCRIPTS = Object.freeze([
  {
    name: 'tpcb-like',
    description: '<builtin: TPC-B (sort of)>',
    text: `${RANDOM_ROWS}BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`
  },
  {
    name: 'simple-update',
    description: '<builtin: simple update>',
    text: `${RANDOM_ROWS}BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`
  },
  {
    name: 'select-only',
    description: '<builtin: select only>',
    text: `\\set aid random(1, ${ACCOUNTS} * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`
  }
])

/**
 * pgbench's findBuiltin: the built-in script whose name starts with the
 * given name, which must match exactly one.
 * @param {string} name
 * @returns {BuiltinScript}
 */
export function findBuiltin(name) {
  const found = BUILTIN_SCRIPTS.filter(script => script.name.startsWith(name))
  if (found.length === 1) return found[0]
  const available = `available: ${BUILTIN_SCRIPTS.map(script => script.name).join(', ')}`
  if (found.length === 0) {
    throw new ScriptLoadError(`no builtin script found for name "${printable(name)}" (${available})`)
  }
  throw new ScriptLoadError(
    `ambiguous builtin name: ${found.length} builtin scripts found for prefix "${printable(name)}" (${available})`
  )
}

/** pgbench's listing of the built-in scripts (-b list). */
export function listBuiltins() {
  return `Available builtin scripts:\n${BUILTIN_SCRIPTS.map(script => `  ${script.name.padStart(13)}: ${script.description}\n`).join('')}\n`
}

/**
 * pgbench's --show-script=NAME: the built-in script, under a comment line.
 * @param {string} name  a unique prefix, as for -b
 */
export function showBuiltin(name) {
  const script = findBuiltin(name)
  return `-- ${script.name}: ${script.description}\n${script.text}\n`
}
