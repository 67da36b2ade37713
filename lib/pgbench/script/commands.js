// The commands of a parsed script, as the interpreter runs them. Everything a
// run needs is computed when the script is read: the SQL in each protocol's
// form, the variables to bind, compiled expressions and where each branch of
// a conditional goes on.

export const SQL = 0
export const SET = 1
export const SLEEP = 2
export const IF = 3
export const ELIF = 4
export const ELSE = 5
export const ENDIF = 6
export const START_PIPELINE = 7
export const SYNC_PIPELINE = 8
export const END_PIPELINE = 9

/** What an SQL command does with its rows. */
export const KEEP_NONE = 0
/** \gset: the last query's single row into variables. */
export const KEEP_ONE = 1
/** \aset: the last row of every query into variables. */
export const KEEP_ALL = 2

/**
 * @typedef {object} SqlCommand
 * @property {typeof SQL} kind
 * @property {number} line
 * @property {string} text            as written (after \; and \:)
 * @property {string[]} variables     the :name references, in order: $1, $2, …
 * @property {string[]} references    the same as written (":name"), left alone in simple mode when undefined
 * @property {string[]} pieces        the text around the references (one more than references)
 * @property {{ name: string, text: string }} statement  the text with $1, $2, …, and its name for -M prepared (-M
 *   extended sends it unnamed)
 * @property {number} keep            KEEP_NONE, KEEP_ONE or KEEP_ALL
 * @property {string} prefix          of the variables \gset / \aset set
 * @property {string | null} paramsError  why the extended protocol cannot run it (too many variables)
 */

/**
 * @typedef {object} SetCommand
 * @property {typeof SET} kind
 * @property {number} line
 * @property {string} variable
 * @property {string} expression
 * @property {(ctx: any) => any} evaluate
 */

/**
 * @typedef {object} SleepCommand
 * @property {typeof SLEEP} kind
 * @property {number} line
 * @property {string} word            the command as written, for messages
 * @property {string | null} variable  the :variable holding the time, or null for a constant
 * @property {number} amount          the constant, when there is no variable
 * @property {number} unitUs          microseconds per unit
 */

/**
 * @typedef {object} ConditionCommand
 * @property {typeof IF | typeof ELIF} kind
 * @property {number} line
 * @property {string} expression
 * @property {(ctx: any) => any} evaluate
 * @property {number} next     index of the next \elif, \else or \endif of the same \if
 * @property {number} endif    index of its \endif
 */

/**
 * @typedef {object} BranchCommand
 * @property {typeof ELSE | typeof ENDIF} kind
 * @property {number} line
 * @property {number} endif    index of the \endif (itself for \endif)
 */

/**
 * @typedef {object} PipelineCommand
 * @property {typeof START_PIPELINE | typeof SYNC_PIPELINE | typeof END_PIPELINE} kind
 * @property {number} line
 */

/** @typedef {SqlCommand | SetCommand | SleepCommand | ConditionCommand | BranchCommand | PipelineCommand} Command */

/**
 * @typedef {object} Script
 * @property {string} name          file name without directory and extension, or the builtin's name
 * @property {string} file          as given on the command line, or the builtin's name; errors are located in it
 * @property {string} description   pgbench's: the file name, or "<builtin: TPC-B (sort of)>"
 * @property {number} weight
 * @property {Command[]} commands
 * @property {boolean} usesBuiltin  a -b script (pgbench then reads :scale from pgbench_branches)
 */
