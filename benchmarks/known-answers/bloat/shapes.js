// The bloat known-answer cases: tables whose dead fraction is fixed by
// construction. Each shape builds one table (a primary key and a secondary
// B-tree index) from seeded sizes, deletes or updates rows in a known
// pattern, and leaves it vacuumed or not, analysed or not. Values come from
// md5 of the row number and the case's seed, so every major builds the same
// rows; autovacuum is off on the table, so nothing changes it behind the
// measurement.

/**
 * @typedef {object} ShapeSizes
 * @property {number} rows       rows inserted
 * @property {number} fraction   the share of rows the pattern deletes or updates, 0 to 1
 * @property {number} step       k of "every k-th row"
 * @property {number} width      the payload's mean width in bytes
 * @property {string} seed       mixed into every value
 */

/**
 * @typedef {object} Shape
 * @property {string} name
 * @property {string} what      a few words for the table
 * @property {(sizes: ShapeSizes) => string[]} build   the statements, in order, on table "t"
 * @property {string} [role]    measure the estimate as this role (one that cannot read the table)
 */

/** A pseudo-random integer 0 … 2^31 of the expression `x` and the seed. @param {string} x @param {string} seed */
const hashInt = (x, seed) => `(('x' || substr(md5(${x} || ':${seed}'), 1, 8))::bit(32)::int & 2147483647)`

/**
 * A text of about `width` bytes varying ±50 % by row: md5 digits of distinct
 * inputs, which pglz cannot compress much (a repeated string would shrink to
 * a few bytes and stay in the heap).
 * @param {number} width @param {string} seed
 */
const text = (width, seed) =>
  `substr((SELECT string_agg(md5(i::text || ':' || j || '${seed}'), '') ` +
  `FROM generate_series(1, ${Math.ceil((width * 1.5) / 32) + 1}) j), 1, ` +
  `${Math.round(width / 2)} + ${hashInt('i', seed)} % ${Math.max(1, width)})`

/**
 * The table and its rows.
 * @param {ShapeSizes} s
 * @param {{ payload?: string, fillfactor?: number, extra?: string, extraValues?: string }} [options]
 */
function create(s, { payload = text(s.width, s.seed), fillfactor = 100, extra = '', extraValues = '' } = {}) {
  return [
    `CREATE TABLE t (id int PRIMARY KEY, k int NOT NULL, note text${extra}) ` +
      `WITH (autovacuum_enabled = false, fillfactor = ${fillfactor})`,
    `INSERT INTO t SELECT i, ${hashInt('i', s.seed)} % ${s.rows}, ${payload}${extraValues} ` +
      `FROM generate_series(1, ${s.rows}) i`,
    'CREATE INDEX t_k ON t (k)',
    'ANALYZE t'
  ]
}

/** Rows chosen at random, the seeded share of them. @param {ShapeSizes} s */
const randomRows = s => `${hashInt("id::text || 'r'", s.seed)} % 1000 < ${Math.round(s.fraction * 1000)}`

/** @type {Shape[]} */
export const SHAPES = [
  {
    name: 'every-kth',
    what: 'every k-th row deleted, analysed, not vacuumed',
    build: s => [...create(s), `DELETE FROM t WHERE id % ${s.step} = 0`, 'ANALYZE t']
  },
  {
    name: 'every-kth-vacuumed',
    what: 'every k-th row deleted, vacuumed',
    build: s => [...create(s), `DELETE FROM t WHERE id % ${s.step} = 0`, 'VACUUM ANALYZE t']
  },
  {
    name: 'range-vacuumed',
    what: 'a contiguous range deleted mid-table, vacuumed',
    build: s => {
      const first = Math.round(s.rows * 0.1)
      return [
        ...create(s),
        `DELETE FROM t WHERE id > ${first} AND id <= ${first + Math.round(s.rows * s.fraction)}`
      ].concat('VACUUM ANALYZE t')
    }
  },
  {
    name: 'random-vacuumed',
    what: 'random rows deleted, vacuumed',
    build: s => [...create(s), `DELETE FROM t WHERE ${randomRows(s)}`, 'VACUUM ANALYZE t']
  },
  {
    name: 'stale-statistics',
    what: 'random rows deleted after the last ANALYZE, neither vacuumed nor analysed since',
    build: s => [...create(s), `DELETE FROM t WHERE ${randomRows(s)}`]
  },
  {
    name: 'wide-text',
    what: 'wide variable-length text (≈1.5 kB), random rows deleted, vacuumed',
    build: s => [...create({ ...s, width: 1500 }), `DELETE FROM t WHERE ${randomRows(s)}`, 'VACUUM ANALYZE t']
  },
  {
    name: 'toast',
    what: 'values of ≈6 kB moved to TOAST, random rows deleted, vacuumed',
    build: s => [
      ...create({ ...s, rows: Math.round(s.rows / 10) }, { payload: text(6000, s.seed) }),
      `DELETE FROM t WHERE ${randomRows(s)}`,
      'VACUUM ANALYZE t'
    ]
  },
  {
    name: 'nulls',
    what: 'eight extra columns, 80 % of them null, random rows deleted, vacuumed',
    build: s => {
      const cols = [...Array(8).keys()]
      const extra = cols.map(c => `, c${c} bigint`).join('')
      const values = cols.map(c => `, CASE WHEN ${hashInt(`i::text || '${c}'`, s.seed)} % 10 < 8 THEN NULL ELSE i END`)
      return [
        ...create(s, { extra, extraValues: values.join(''), payload: text(20, s.seed) }),
        `DELETE FROM t WHERE ${randomRows(s)}`,
        'VACUUM ANALYZE t'
      ]
    }
  },
  {
    name: 'fillfactor-70',
    what: 'fillfactor 70, random rows deleted, vacuumed',
    build: s => [...create(s, { fillfactor: 70 }), `DELETE FROM t WHERE ${randomRows(s)}`, 'VACUUM ANALYZE t']
  },
  {
    name: 'hot-updates',
    what: 'fillfactor 80, random rows updated twice in a column no index has (HOT), analysed',
    build: s => [
      ...create(s, { fillfactor: 80 }),
      `UPDATE t SET note = note || 'x' WHERE ${randomRows(s)}`,
      `UPDATE t SET note = note || 'y' WHERE ${randomRows(s)}`,
      'ANALYZE t'
    ]
  },
  {
    name: 'no-pg_stats',
    what: 'random rows deleted, vacuumed; the estimate read by a role that cannot read pg_stats for the table',
    role: 'bloat_blind',
    build: s => [...create(s), `DELETE FROM t WHERE ${randomRows(s)}`, 'VACUUM ANALYZE t']
  }
]

/** The shapes of the quick subset (CI). */
export const QUICK_SHAPES = ['every-kth', 'random-vacuumed', 'wide-text', 'no-pg_stats']

/**
 * Seeded sizes for a case.
 * @param {() => number} random   uniform 0 … 1
 * @param {number} seed
 * @returns {ShapeSizes}
 */
export function drawSizes(random, seed) {
  return {
    rows: 20000 + Math.floor(random() * 30000),
    fraction: 0.15 + random() * 0.55,
    step: 2 + Math.floor(random() * 4),
    width: 40 + Math.floor(random() * 160),
    seed: String(seed)
  }
}
