// The shapes of the chart specifications the report pages carry and the
// page's script draws (client/draw.js, client/events.js): charts.js and
// series-charts.js compute them, html.js lays them out on the page.

/**
 * @typedef {'count' | 'rate' | 'us' | 'bytes' | 'pct' | 'phase'} Format
 */

/**
 * @typedef {object} SeriesSpec
 * @property {string} label
 * @property {string} color
 * @property {(number | null)[]} x
 * @property {(number | null)[]} y
 * @property {0 | 1} [axis]       1: the right-hand axis
 * @property {boolean} [step]
 * @property {number} [width]
 * @property {number[]} [dash]
 */

/**
 * @typedef {object} EventMark
 * @property {number} from       seconds from t0
 * @property {number | null} to  null: a point in time
 * @property {string} label
 * @property {string} color
 * @property {string} [detail]   what the action did, shown when the cursor is on its band
 */

/**
 * @typedef {object} ChartSpec
 * @property {string} id
 * @property {string} title
 * @property {string} [note]
 * @property {Format} format
 * @property {Format} [rightFormat]
 * @property {string} [rightLabel]
 * @property {boolean} [log]
 * @property {boolean} [zero]    the y scale starts at zero
 * @property {boolean} [wide]    spans the page's width
 * @property {SeriesSpec[]} series
 * @property {EventMark[]} events
 */

export {}
