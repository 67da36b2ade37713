import { layout } from './layout.js'
import { setupTgres } from './setup.js'
import { flushSegment, readSeries } from './requests.js'
import { tgresStatistics } from './statistics.js'
import { DROP, SCHEMA } from './schema.js'

// Tgres's write-optimized ("vertical") layout in PostgreSQL: a ts row is one
// time slot of a segment of `width` series, a series' value is an element
// of the row's dp array, and a write updates a contiguous slice of those
// arrays in place. A ring of `slots` slots per series: once every slot has
// its row, every write is an UPDATE, and the table lives or dies by how
// well vacuum and HOT updates keep up (Tgres's failure signal: table bloat).
//
// Data time is simulated: the writes of one step (every series' point) are
// handed out to the clients in order, a segment's one at a time (order.js:
// a write of a segment goes once its previous one has ended, as Tgres never
// flushes a segment twice at once), and a segment's slot moves on when its
// writes of a step have been handed out. It runs as fast as the server
// takes the writes; -R holds a steady rate (series ÷ slice ÷ step writes a
// second is real time). One thread: the order is kept in the process's
// memory, so --threads above 1 is refused.
//
// --fillfactor is set on ts when it differs from the table's (at creation,
// before any row). On a table that already holds rows it is set too, with
// a warning: only rows placed from then on get it; VACUUM FULL ts repacks
// the rest. Another --segment-width than the one the archives were laid out
// in is refused (a layout cannot change in place).

/** @type {import('../contract.js').WorkloadModule} */
export default {
  name: 'tgres',
  description:
    "Tgres's vertical layout: one ts row per slot of a segment of series, array slices updated in place (UPDATE ts SET dp[a:b] = …), a ring of slots per series",
  table: 'ts',
  audit: { table: 'ts' },
  fill: 'flush_segment=1',
  schema: SCHEMA,
  drop: DROP,
  types: [
    { name: 'flush_segment', weight: 1 },
    { name: 'read_series', weight: 0 }
  ],
  options: {
    series: {
      type: 'integer',
      default: 10000,
      min: 1,
      max: 10000000,
      describe: 'series written (Tgres data sources, one archive each)'
    },
    'segment-width': {
      type: 'integer',
      default: 200,
      min: 1,
      describe:
        'series per segment: the array elements of a ts row (Tgres: 200; above 242, dp is kept in TOAST; at most 807, the widest row an 8 kB page holds)'
    },
    step: {
      type: 'duration',
      default: '10s',
      min: 0.001,
      describe: "each series' interval between points: the time one slot covers"
    },
    slots: {
      type: 'integer',
      default: 1440,
      min: 1,
      max: 2147483647,
      describe: "slots in each series' ring (a ts row per slot and segment)"
    },
    fillfactor: { type: 'integer', default: 100, min: 10, max: 100, describe: 'fillfactor of ts' },
    slice: {
      type: 'integer',
      default: 0,
      min: 0,
      describe:
        'series a write updates at once, a contiguous run of a segment (0: the whole segment, as Tgres flushes a full slot)'
    }
  },
  configure({ options }) {
    return layout(/** @type {Parameters<typeof layout>[0]} */ (options))
  },
  statistics: config => tgresStatistics(config),
  setup: setupTgres,
  requests: {
    flush_segment: flushSegment,
    read_series: readSeries
  }
}
