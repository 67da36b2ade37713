import { esc } from './html.js'

// The opening of an experiment's report: the plan's question and its
// answer (answer-lead.js), before the tables and charts.

/** @type {Record<string, string>} the colour of each verdict */
const COLOURS = {
  appeared: '#2b8a3e',
  opposite: '#c92a2a',
  'not shown': '#c92a2a',
  'no interval': '#868e96',
  'not measured': '#868e96'
}

/**
 * @param {import('./answer-lead.js').Answer | null} answer
 * @returns {string} HTML, '' without an answer
 */
export function answerSection(answer) {
  if (!answer) return ''
  const items = answer.items
    .map(
      item => `<li>${esc(item.expected)} <span style="color:${COLOURS[item.verdict]}">${esc(item.measured)}</span></li>`
    )
    .join('\n')
  return `<section class="answer" id="answer">
${answer.question ? `<h2>${esc(answer.question)}</h2>` : ''}
<p><strong>${esc(answer.headline)}</strong></p>
${items ? `<ul>\n${items}\n</ul>\n<p class="lead">${esc(answer.method)}</p>` : ''}
</section>`
}
