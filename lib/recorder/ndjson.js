import { readFile } from 'node:fs/promises'

/**
 * The records of an NDJSON file the recorder wrote (samples, events): a
 * missing file is none, and a line cut short by a crash is left out, since
 * the rest still tells the run.
 * @param {string} file
 * @returns {Promise<any[]>}
 */
export async function readNdjson(file) {
  const text = await readFile(file, 'utf8').catch(() => '')
  const out = []
  for (const line of text.split('\n')) {
    if (!line) continue
    try {
      out.push(JSON.parse(line))
    } catch {
      // cut short
    }
  }
  return out
}
