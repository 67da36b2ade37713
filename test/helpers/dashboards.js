// Reading the Grafana dashboards in dashboards/: their panels, the PromQL of
// every target and annotation, and Grafana's variable substitution, so that a
// test can run each expression against a real Prometheus.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO } from './cli.js'

export const DASHBOARD_DIR = join(REPO, 'dashboards')

/**
 * @typedef {object} DashboardFile
 * @property {string} file   name in dashboards/
 * @property {any} json
 */

/** @returns {DashboardFile[]} every *.json directly in dashboards/ */
export function loadDashboards() {
  return readdirSync(DASHBOARD_DIR)
    .filter(name => name.endsWith('.json'))
    .sort()
    .map(file => ({ file, json: JSON.parse(readFileSync(join(DASHBOARD_DIR, file), 'utf8')) }))
}

/**
 * Every panel, with those nested in collapsed rows; rows themselves excluded.
 * @param {any} dashboard
 * @returns {any[]}
 */
export function panelsOf(dashboard) {
  /** @type {any[]} */
  const out = []
  for (const panel of dashboard.panels ?? []) {
    if (panel.type === 'row') out.push(...(panel.panels ?? []))
    else out.push(panel)
  }
  return out
}

/**
 * @typedef {object} Query
 * @property {string} where   "file › panel title › refId" or "file › annotation name"
 * @property {string} title   panel title or annotation name
 * @property {string} expr    as written in the dashboard
 */

/**
 * The PromQL of every panel target.
 * @param {DashboardFile} dashboard
 * @returns {Query[]}
 */
export function panelQueries({ file, json }) {
  return panelsOf(json).flatMap(panel =>
    (panel.targets ?? [])
      .filter((/** @type {any} */ target) => !target.hide)
      .map((/** @type {any} */ target) => ({
        where: `${file} › ${panel.title} › ${target.refId}`,
        title: panel.title,
        expr: target.expr
      }))
  )
}

/**
 * The PromQL of every Prometheus annotation (Grafana's built-in one excluded).
 * @param {DashboardFile} dashboard
 * @returns {Query[]}
 */
export function annotationQueries({ file, json }) {
  return (json.annotations?.list ?? [])
    .filter((/** @type {any} */ a) => !a.builtIn)
    .map((/** @type {any} */ a) => ({
      where: `${file} › annotation ${a.name}`,
      title: a.name,
      expr: a.expr ?? a.target?.expr
    }))
}

/**
 * Grafana's variable substitution: $name, ${name}, ${name:format} and
 * [[name]]. An unknown variable throws, so that a new dashboard variable
 * cannot slip past the tests.
 * @param {string} expr
 * @param {Record<string, string>} values
 */
export function substitute(expr, values) {
  return expr.replace(/\$\{(\w+)(?::[^}]*)?\}|\[\[(\w+)(?::[^\]]*)?\]\]|\$(\w+)/g, (match, a, b, c) => {
    const name = a ?? b ?? c
    if (!Object.hasOwn(values, name)) throw new Error(`unknown Grafana variable ${match} in: ${expr}`)
    return values[name]
  })
}

const NAME_PREFIX = /\b(?:pgloadgen|pg|process|nodejs)_[a-zA-Z0-9_]+/g
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count']

/**
 * The metric names an expression reads: plain selectors, and the names a
 * __name__ regex matches among the known ones. Quoted strings (label values)
 * are not names.
 * @param {string} expr
 * @param {Set<string>} known   names, histograms by their base name
 * @returns {{ names: string[], unknown: string[] }}
 */
export function metricNames(expr, known) {
  const names = new Set()
  const unknown = new Set()
  for (const [, regex] of expr.matchAll(/__name__\s*=~\s*"([^"]*)"/g)) {
    const re = new RegExp(`^(?:${regex})$`)
    const matched = [...known].filter(name => re.test(name))
    if (matched.length === 0) unknown.add(`__name__=~"${regex}"`)
    for (const name of matched) names.add(name)
  }
  const unquoted = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')
  for (const [token] of unquoted.matchAll(NAME_PREFIX)) {
    let name = token
    if (!known.has(name)) {
      const suffix = HISTOGRAM_SUFFIXES.find(s => name.endsWith(s) && known.has(name.slice(0, -s.length)))
      if (suffix) name = name.slice(0, -suffix.length)
    }
    if (known.has(name)) names.add(name)
    else unknown.add(token)
  }
  return { names: [...names], unknown: [...unknown] }
}
