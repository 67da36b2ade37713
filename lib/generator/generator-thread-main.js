// A generator thread's entry point: node-postgres loads first, without the
// fetch implementation it would load for nothing in every thread
// (lib/pg/load-pg.js says why), then the thread's body.
import { loadPg } from '../pg/load-pg.js'

await loadPg()
await import('./generator-thread.js')
