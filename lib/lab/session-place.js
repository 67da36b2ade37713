// What a load session is given besides its run specification: where the
// load runs and what it reports to. The command that drives the session
// (cli/run-load.js, an experiment's phase, a capacity search) makes it.

/**
 * Where a load runs and what it reports to: what is not a setting of the
 * run, given by the command that drives the session.
 * @typedef {object} SessionPlace
 * @property {{ connectionString: string, display: string, embedded: boolean }} target  display: without secrets
 * @property {{ dataDir: string | null, events: import('../recorder/event-log.js').EventLog | null }} [disk]  watch for
 *   a full disk (lib/lab/disk-space.js)
 * @property {string | null} [serverLogDir]  the server's data directory, when local: autovacuums are read from its log
 *   (else disk.dataDir)
 * @property {Probe[]} [probes]              more figures for the samples, each under its name (started and stopped with
 *   the session)
 * @property {import('./server-watch.js').ServerWatch | null} [serverWatch]  the embedded server the run owns, started
 *   again when it stops on its own (started with the load, stopped before the audit)
 * @property {Record<string, unknown>} describe  more facts for run.json (flags, plan step, label)
 * @property {import('prom-client').Registry} registry
 * @property {import('../log.js').Logger} log
 */

/**
 * Something the session samples besides the server's statistics (a ZFS
 * pool's free space, say): started with the collector, stopped with it, and
 * read once a second by the recorder into each sample under `name`.
 * @typedef {object} Probe
 * @property {string} name
 * @property {() => Promise<void>} start
 * @property {() => Promise<void> | void} stop
 * @property {() => unknown} sample   the last figures, as plain data; null when none yet
 */

export {}
