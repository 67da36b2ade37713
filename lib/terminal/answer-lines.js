import { PLAIN } from './colours.js'

// The opening of the end of `pgloadgen experiment`: the plan's question and
// its answer (report/answer-lead.js builds it), wrapped to the terminal's
// width, each measured effect coloured by its verdict.

/**
 * The answer as the report builds it: the fields this module reads.
 * @typedef {object} AnswerText
 * @property {string | null} question
 * @property {string} headline
 * @property {Array<{ expected: string, measured: string, verdict: string }>} items
 * @property {string} method
 */

/**
 * @param {AnswerText | null} answer
 * @param {{ colours?: import('./colours.js').Colours, width?: number }} [options]
 * @returns {string[]} lines, without newlines; none without an answer
 */
export function answerLines(answer, { colours = PLAIN, width = 80 } = {}) {
  if (!answer) return []
  /** @param {string} verdict @param {string} text */
  const tint = (verdict, text) =>
    verdict === 'appeared'
      ? colours.green(text)
      : verdict === 'not shown' || verdict === 'opposite'
        ? colours.red(text)
        : text
  return [
    '',
    ...(answer.question ? wrap(`Question: ${answer.question}`, width).map(colours.bold) : []),
    ...wrap(answer.headline, width).map(colours.bold),
    ...answer.items.flatMap(item => [
      ...wrap(item.expected, width),
      ...wrap(item.measured, width).map(line => tint(item.verdict, line))
    ]),
    ...(answer.items.length > 0 ? wrap(answer.method, width).map(colours.dim) : [])
  ]
}

/**
 * Breaks text at spaces into lines of at most width characters (a longer word stays whole).
 * @param {string} text
 * @param {number} width
 * @returns {string[]}
 */
export function wrap(text, width) {
  const lines = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(line)
  return lines
}
