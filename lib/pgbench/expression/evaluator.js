// What a compiled expression is: a function of the context it is evaluated
// in (compile.js makes them; operators.js and functions.js build them from
// their arguments' evaluators).

/**
 * @typedef {import('./values.js').Value} Value
 * @typedef {{
 *   variables: import('../variables.js').Variables,
 *   random: import('../random.js').Random,
 *   script?: number,
 *   command?: number,
 *   debug?: (line: string) => void
 * }} EvalContext
 *   script and command (0-based indexes) only label debug()'s output, which
 *   goes to debug when given, else to stderr as pgbench writes it.
 * @typedef {(ctx: EvalContext) => Value} Evaluator
 * @typedef {(args: Evaluator[]) => Evaluator} Builder
 */

export {}
