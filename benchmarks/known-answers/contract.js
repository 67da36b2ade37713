// What every part of the known-answer suite takes and gives back. A part is
// a module of this folder that exports `run(context)`: it builds cases whose
// answer is fixed by construction, asks the lab, and returns one row per
// scenario with the lab's answer beside the truth.

/**
 * @typedef {object} KnownAnswerContext
 * @property {number} seed        base seed: every random moment and size of a part is derived from it
 * @property {boolean} quick      the short subset (a few cases), as `npm test` and a quick look run it
 * @property {string[] | null} incidentKinds   the incident kinds to run alone (null: every kind, and the steady runs)
 * @property {(line: string) => void} say   a progress line for the terminal
 */

/**
 * @typedef {object} KnownAnswerRow
 * @property {string} part        'change points', 'causes', 'capacity', 'bloat', 'plans'
 * @property {string} scenario    what was constructed
 * @property {number} cases       how many cases were run
 * @property {string} result      what the lab answered
 * @property {string} truth       the known answer
 * @property {string} error       the lab's error against the truth
 * @property {string} target      what the error must stay within
 * @property {boolean} met
 */

/**
 * @typedef {object} KnownAnswerPart
 * @property {(context: KnownAnswerContext) => Promise<KnownAnswerRow[]>} run
 */

export {}
