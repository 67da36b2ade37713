// Reading the Prometheus text exposition format, and histogram_quantile as
// Prometheus computes it, so that the tests check what a scraper would see.

/**
 * @typedef {object} Sample
 * @property {string} name
 * @property {Record<string, string>} labels
 * @property {number} value
 */

/**
 * @typedef {object} Family
 * @property {string} name
 * @property {string | null} type
 * @property {string | null} help
 * @property {Sample[]} samples
 */

const SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created']

/**
 * Parses the text format (version 0.0.4). Throws on a line it cannot read,
 * so a malformed exposition fails the test.
 * @param {string} text
 * @returns {Map<string, Family>} by family name
 */
export function parsePrometheusText(text) {
  /** @type {Map<string, Family>} */
  const families = new Map()
  const family = (/** @type {string} */ name) => {
    let f = families.get(name)
    if (!f) {
      f = { name, type: null, help: null, samples: [] }
      families.set(name, f)
    }
    return f
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) ?(.*)$/.exec(line)
      if (!meta) continue // a plain comment
      const f = family(meta[2])
      if (meta[1] === 'HELP') f.help = meta[3]
      else f.type = meta[3]
      continue
    }
    const sample = parseSampleLine(line)
    family(familyOf(sample.name, families)).samples.push(sample)
  }
  return families
}

/**
 * @param {string} name
 * @param {Map<string, Family>} families
 */
function familyOf(name, families) {
  if (families.has(name)) return name
  for (const suffix of SUFFIXES) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length)
      if (families.has(base)) return base
    }
  }
  return name
}

/**
 * @param {string} line
 * @returns {Sample}
 */
export function parseSampleLine(line) {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line)
  if (!head) throw new Error(`unreadable metrics line: ${line}`)
  const name = head[1]
  let i = name.length
  /** @type {Record<string, string>} */
  const labels = {}
  if (line[i] === '{') {
    i++
    for (;;) {
      while (line[i] === ' ' || line[i] === ',') i++
      if (line[i] === '}') {
        i++
        break
      }
      const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i))
      if (!labelName || line[i + labelName[0].length] !== '=' || line[i + labelName[0].length + 1] !== '"') {
        throw new Error(`unreadable labels in metrics line: ${line}`)
      }
      i += labelName[0].length + 2
      let value = ''
      for (;;) {
        const c = line[i]
        if (c === undefined) throw new Error(`unterminated label value in metrics line: ${line}`)
        if (c === '"') {
          i++
          break
        }
        if (c === '\\') {
          const next = line[i + 1]
          value += next === 'n' ? '\n' : next
          i += 2
        } else {
          value += c
          i++
        }
      }
      if (Object.hasOwn(labels, labelName[0])) throw new Error(`label ${labelName[0]} repeated in: ${line}`)
      labels[labelName[0]] = value
    }
  }
  const rest = line.slice(i).trim().split(/\s+/)
  if (rest.length < 1 || rest.length > 2 || rest[0] === '') throw new Error(`unreadable value in metrics line: ${line}`)
  const value = parseValue(rest[0])
  if (Number.isNaN(value) && rest[0].toLowerCase() !== 'nan') {
    throw new Error(`unreadable value in metrics line: ${line}`)
  }
  return { name, labels, value }
}

/**
 * A sample value as Prometheus reads it (Go's ParseFloat: NaN and Inf in any
 * case; prom-client writes NaN as "Nan").
 * @param {string} text
 */
function parseValue(text) {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text)
  if (special) return special[2].toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity
  return text.trim() === '' ? NaN : Number(text)
}

/**
 * @typedef {object} Page
 * @property {string} text
 * @property {string | null} contentType
 * @property {Map<string, Family>} families
 */

/**
 * Fetches and parses a /metrics page.
 * @param {string} url
 * @returns {Promise<Page>}
 */
export async function scrape(url) {
  const response = await fetch(url)
  const text = await response.text()
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${text}`)
  return { text, contentType: response.headers.get('content-type'), families: parsePrometheusText(text) }
}

/**
 * The value of the one sample of a family whose labels include `labels`.
 * @param {Map<string, Family>} families
 * @param {string} name   sample name
 * @param {Record<string, string>} [labels]
 * @returns {number | undefined}
 */
export function sampleValue(families, name, labels = {}) {
  const family = families.get(familyOf(name, families))
  const matches = (family?.samples ?? []).filter(
    s => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)
  )
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return matches[0]?.value
}

/**
 * Like sampleValue, for a sample that must be there.
 * @param {Map<string, Family>} families
 * @param {string} name
 * @param {Record<string, string>} [labels]
 * @returns {number}
 */
export function requiredSample(families, name, labels = {}) {
  const value = sampleValue(families, name, labels)
  if (value === undefined) throw new Error(`no sample ${name} ${JSON.stringify(labels)} in the metrics`)
  return value
}

/**
 * @typedef {object} Bucket
 * @property {number} le      upper bound, Infinity for +Inf
 * @property {number} count   cumulative
 */

/**
 * The cumulative buckets of the histogram series whose labels include
 * `labels`, summed over the labels not given (like `sum by (le, …)`), in
 * ascending order of le.
 * @param {Map<string, Family>} families
 * @param {string} name   family name
 * @param {Record<string, string>} labels
 * @returns {Bucket[]}
 */
export function histogramBuckets(families, name, labels) {
  /** @type {Map<number, number>} */
  const byLe = new Map()
  for (const s of families.get(name)?.samples ?? []) {
    if (s.name !== `${name}_bucket`) continue
    if (!Object.entries(labels).every(([k, v]) => s.labels[k] === v)) continue
    const le = parseValue(s.labels.le)
    byLe.set(le, (byLe.get(le) ?? 0) + s.value)
  }
  return [...byLe].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le)
}

/**
 * Prometheus's histogram_quantile: linear interpolation inside the bucket the
 * rank falls into; the lowest bucket starts at 0; a rank in +Inf gives the
 * highest finite bound. NaN for an empty histogram.
 * @param {number} q
 * @param {Bucket[]} buckets   cumulative, ascending, last is +Inf
 */
export function histogramQuantile(q, buckets) {
  if (buckets.length < 2 || buckets[buckets.length - 1].le !== Infinity) return NaN
  const total = buckets[buckets.length - 1].count
  if (total === 0) return NaN
  if (q < 0) return -Infinity
  if (q > 1) return Infinity
  const rank = q * total
  let b = buckets.findIndex(bucket => bucket.count >= rank)
  if (b === buckets.length - 1) return buckets[buckets.length - 2].le
  if (b === 0 && buckets[0].le <= 0) return buckets[0].le
  if (b < 0) b = buckets.length - 1
  const start = b === 0 ? 0 : buckets[b - 1].le
  const below = b === 0 ? 0 : buckets[b - 1].count
  const inBucket = buckets[b].count - below
  return start + (buckets[b].le - start) * ((rank - below) / inBucket)
}
