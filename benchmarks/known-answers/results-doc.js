// The bench's tables, dated, in docs/results.md: between two markers of
// their part (known-answers, chaos), newest first, so that each run of
// `npm run bench -- answers --update-docs` (or chaos) adds its table and
// keeps the earlier ones as the record.
import { readFile, writeFile } from 'node:fs/promises'

/**
 * Puts a dated table first between the markers of the file.
 * @param {string} file
 * @param {string} heading   e.g. '2026-11-27, loaded machine'
 * @param {string[]} lines   the table and the machine line
 * @param {string} [block]   whose markers: <!-- BLOCK:begin --> … <!-- /BLOCK -->
 */
export async function addToResults(file, heading, lines, block = 'known-answers') {
  const BEGIN = `<!-- ${block}:begin -->`
  const END = `<!-- /${block} -->`
  const text = await readFile(file, 'utf8')
  const begin = text.indexOf(BEGIN)
  const end = text.indexOf(END)
  if (begin < 0 || end < begin) throw new Error(`${file} has no "${BEGIN}" … "${END}" block`)
  const head = text.slice(0, begin + BEGIN.length)
  const added = ['', '', `### ${heading}`, '', ...lines].join('\n')
  await writeFile(file, head + added + text.slice(begin + BEGIN.length))
}
