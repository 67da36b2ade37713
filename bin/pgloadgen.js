#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8'

// A run allocates short-lived objects at a steady rate and keeps few of
// them: V8's default would grow the young generation to 16 MiB semi-spaces
// (48 MiB reserved), which adds about 15 MiB of resident memory and buys no
// throughput here. Left at its initial size, a scavenge stays cheap (it
// costs what survives, and little does). Set before any module is loaded,
// so that every heap of the process, worker threads' too, keeps it.
setFlagsFromString('--semi-space-growth-factor=1')

// node-postgres first, without the fetch implementation it would load for
// nothing (lib/pg/load-pg.js says why).
await (await import('../lib/pg/load-pg.js')).loadPg()
// the CLI's modules, with the text segmenter they build as they load
// deferred to its first use (lib/terminal/lazy-segmenter.js says why)
const { withDeferredSegmenter } = await import('../lib/terminal/lazy-segmenter.js')
const { main } = await withDeferredSegmenter(() => import('../lib/cli/main.js'))
process.exitCode = await main(process.argv.slice(2))
