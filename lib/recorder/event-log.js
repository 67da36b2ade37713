import { appendFile, mkdir } from 'node:fs/promises'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import client from 'prom-client'
import { errorMessage } from '../helpers/error-message.js'

/** @typedef {import('./records.js').LabEvent} LabEvent */

const RECENT = 50

// The lab's timeline: every action and control change, appended as one JSON
// object per line, kept in memory for /status, and exported as metrics that
// Grafana can draw as annotations.
export class EventLog {
  /**
   * @param {{ file: string | null, registry?: client.Registry, log: import('../log.js').Logger }} options
   */
  constructor({ file, registry, log }) {
    this.file = file
    this.log = log
    /** @type {LabEvent[]} */
    this.recent = []
    /** @type {Promise<void>} appends in order */
    this.writing = Promise.resolve()
    this.running = new client.Gauge({
      name: 'pgloadgen_sidecar_action_running',
      help: 'Actions running now, by action and table (1 while running)',
      labelNames: ['action', 'table'],
      registers: registry ? [registry] : []
    })
    this.ends = new client.Counter({
      name: 'pgloadgen_sidecar_actions_total',
      help: 'Actions finished, by action and outcome',
      labelNames: ['action', 'outcome'],
      registers: registry ? [registry] : []
    })
    this.points = new client.Counter({
      name: 'pgloadgen_sidecar_events_total',
      help: 'Events recorded, by action and kind',
      labelNames: ['action', 'kind'],
      registers: registry ? [registry] : []
    })
  }

  /**
   * @param {Omit<LabEvent, 'ts'>} event
   * @returns {Promise<LabEvent>}
   */
  record(event) {
    /** @type {LabEvent} */
    const full = { ts: new Date().toISOString(), ...event }
    this.recent.push(full)
    if (this.recent.length > RECENT) this.recent.shift()
    const table = event.table ?? ''
    this.points.inc({ action: event.action, kind: event.kind })
    if (event.kind === 'start') this.running.inc({ action: event.action, table })
    if (event.kind === 'end') {
      this.running.dec({ action: event.action, table })
      this.ends.inc({ action: event.action, outcome: event.ok === false ? 'error' : 'ok' })
    }
    const file = this.file
    if (file) {
      this.writing = this.writing
        .then(() => mkdir(path.dirname(file), { recursive: true }))
        .then(() => appendFile(file, JSON.stringify(full) + '\n'))
        .catch(err => this.log.warn(`cannot write event to ${file}: ${err.message}`, 'PGLG_W_RECORD_WRITE_FAILED'))
    }
    return this.writing.then(() => full)
  }

  /**
   * Runs a change between a start and an end event; the end carries the
   * duration and the outcome, and a failure is rethrown after it.
   * @template T
   * @param {Omit<LabEvent, 'ts' | 'kind' | 'duration_s' | 'ok' | 'error'>} base  action, table, detail
   * @param {() => Promise<T>} change
   * @returns {Promise<T>}
   */
  async timed(base, change) {
    const started = performance.now()
    const took = () => Math.round(performance.now() - started) / 1000
    await this.record({ kind: 'start', ...base })
    try {
      const result = await change()
      await this.record({ kind: 'end', ...base, duration_s: took(), ok: true })
      return result
    } catch (err) {
      await this.record({ kind: 'end', ...base, duration_s: took(), ok: false, error: errorMessage(err) })
      throw err
    }
  }

  /** Waits for pending appends. */
  flush() {
    return this.writing
  }
}
