// The report page's own script, inlined into report.html after uPlot: reads
// the chart specifications from the page's JSON data block and draws each
// chart into its container, with the run's events as shaded bands (actions,
// from start to end) and vertical lines (points), drawn by events.js. When
// every chart is drawn, document.body.dataset.chartsRendered holds their
// count and each container its number of data points in data-points; a
// chart without data shows a note instead of an empty canvas.
/* global window, document, devicePixelRatio */
;(function () {
  /** @type {any} */
  const uPlot = /** @type {any} */ (window).uPlot
  /** @type {(events: any[]) => any} from events.js */
  const eventsPlugin = /** @type {any} */ (window).pgloadgenEventsPlugin
  const dataBlock = document.getElementById('report-data')
  const data = JSON.parse(dataBlock ? dataBlock.textContent || '{}' : '{}')
  /** @type {Record<string, any>} */
  const specs = data.charts || {}
  const PHASES = [
    'none',
    'initializing',
    'scanning heap',
    'vacuuming indexes',
    'vacuuming heap',
    'cleaning up indexes',
    'truncating heap',
    'final cleanup',
    'other'
  ]
  const PHASE_TICKS = [
    'none',
    'init',
    'scan heap',
    'vac. indexes',
    'vac. heap',
    'clean indexes',
    'truncate',
    'final',
    'other'
  ]
  const HEIGHT = 240
  /** tick steps of the time axis: whole seconds, then minutes (samples are a second apart) */
  const SECOND_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400]
  /** @type {number[]} tick steps of byte axes: 1, 2, 4 … 512 times a power of 1024 */
  const BYTE_STEPS = []
  for (let k = 0; k < 6; k++) for (let m = 1; m < 1024; m *= 2) BYTE_STEPS.push(m * 1024 ** k)

  /**
   * @param {number} value
   * @param {number} [digits]
   */
  function fixed(value, digits) {
    const abs = Math.abs(value)
    const d = digits !== undefined ? digits : abs >= 100 ? 0 : abs >= 10 ? 1 : 2
    return value.toFixed(d).replace(/\.0+$|(\.\d*?)0+$/, '$1')
  }

  /** @param {number} value */
  function count(value) {
    const abs = Math.abs(value)
    if (abs >= 1e9) return fixed(value / 1e9) + 'G'
    if (abs >= 1e6) return fixed(value / 1e6) + 'M'
    if (abs >= 1e4) return fixed(value / 1e3) + 'k'
    return fixed(value)
  }

  /** @param {number} us */
  function micros(us) {
    if (us >= 1e6) return fixed(us / 1e6) + ' s'
    if (us >= 1e3) return fixed(us / 1e3) + ' ms'
    return fixed(us) + ' µs'
  }

  /** @param {number} value */
  function bytes(value) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
    let v = value
    let i = 0
    while (Math.abs(v) >= 1024 && i < units.length - 1) {
      v /= 1024
      i++
    }
    return fixed(v) + ' ' + units[i]
  }

  /**
   * @param {string} format
   * @param {boolean} tick   an axis tick (short) rather than a legend value
   * @returns {(value: number) => string}
   */
  function formatter(format, tick) {
    switch (format) {
      case 'rate':
        return v => count(v) + (tick ? '' : ' /s')
      case 'us':
        return micros
      case 'bytes':
        return bytes
      case 'pct':
        return v => fixed(v, v >= 10 ? 0 : 1) + ' %'
      case 'phase':
        return v => (tick ? PHASE_TICKS : PHASES)[Math.round(v)] || ''
      default:
        return count
    }
  }

  /** @param {number} s */
  function seconds(s) {
    const sign = s < 0 ? '−' : ''
    const abs = Math.abs(s)
    if (abs < 120) return sign + fixed(abs, abs % 1 === 0 ? 0 : 1) + ' s'
    const m = Math.floor(abs / 60)
    const rest = Math.round(abs - m * 60)
    return sign + m + ':' + String(rest).padStart(2, '0')
  }

  /**
   * An axis size that fits its widest tick label.
   * @param {any} u
   * @param {string[] | null} values
   * @param {number} axisIdx
   * @param {number} cycleNum
   */
  function axisSize(u, values, axisIdx, cycleNum) {
    const axis = u.axes[axisIdx]
    if (cycleNum > 1) return axis._size
    let size = axis.ticks.size + axis.gap + 4
    const longest = (values || []).reduce((a, v) => (String(v).length > a.length ? String(v) : a), '')
    if (longest !== '') {
      u.ctx.font = axis.font[0]
      size += u.ctx.measureText(longest).width / devicePixelRatio
    }
    return Math.ceil(size)
  }

  /**
   * @param {HTMLElement} container
   * @param {any} spec
   * @returns {any} the uPlot instance, or null for a chart without data
   */
  function draw(container, spec) {
    const plot = /** @type {HTMLElement} */ (container.querySelector('.plot'))
    const log = !!spec.log
    let points = 0
    const tables = spec.series.map((/** @type {any} */ s) => {
      const y = s.y.map((/** @type {any} */ v) => (typeof v === 'number' && isFinite(v) && (!log || v > 0) ? v : null))
      for (const v of y) if (v !== null) points++
      return [s.x, y]
    })
    container.dataset.points = String(points)
    if (points === 0) {
      plot.innerHTML = '<p class="no-data">no data: nothing was recorded for this chart</p>'
      return null
    }
    const aligned = uPlot.join(tables)
    const options = {
      width: Math.max(plot.clientWidth, 300),
      height: HEIGHT,
      scales: scalesOf(spec),
      axes: axesOf(spec),
      series: seriesOf(spec),
      legend: { live: true },
      cursor: { sync: { key: spec.sync || 'report' }, drag: { x: true, y: false } },
      plugins: [eventsPlugin(spec.events || [])]
    }
    return new uPlot(options, aligned, plot)
  }

  /**
   * A y scale's range: padded around the data, from zero when asked.
   * @param {boolean} zero
   * @returns {any}
   */
  const range = zero => (/** @type {any} */ _u, /** @type {number} */ min, /** @type {number} */ max) => {
    if (min === null || max === null) return [0, 1]
    const lo = zero ? Math.min(0, min) : min
    const hi = max
    if (hi === lo) return zero && lo === 0 ? [0, 1] : [lo - (Math.abs(lo) || 1) * 0.1, hi + (Math.abs(hi) || 1) * 0.1]
    const pad = (hi - lo) * 0.06
    return [zero && lo === 0 ? 0 : lo - pad, hi + pad]
  }

  /**
   * The x scale, on the page's shared range, and the left and right y scales.
   * @param {any} spec
   */
  function scalesOf(spec) {
    const log = !!spec.log
    /** @type {any} */
    const scales = {
      x: { time: false, range: spec.xRange ? () => spec.xRange : undefined },
      y: log ? { distr: 3, log: 10 } : spec.format === 'phase' ? { range: [0, 8.3] } : { range: range(!!spec.zero) },
      r: spec.rightFormat === 'pct' ? { range: [0, 105] } : { range: range(true) }
    }
    return scales
  }

  /**
   * The time axis, the left axis and, when a series is drawn against it, the
   * right axis.
   * @param {any} spec
   */
  function axesOf(spec) {
    const yTick = formatter(spec.format, true)
    const rightTick = formatter(spec.rightFormat || spec.format, true)
    const hasRight = spec.series.some((/** @type {any} */ s) => s.axis === 1)
    /** @type {Record<string, any>[]} */
    const axes = [
      {
        values: (/** @type {any} */ _u, /** @type {number[]} */ ticks) => ticks.map(seconds),
        size: 36,
        incrs: SECOND_STEPS
      },
      {
        scale: 'y',
        values: (/** @type {any} */ _u, /** @type {number[]} */ ticks) => ticks.map(v => (v === null ? '' : yTick(v))),
        size: axisSize,
        ...(spec.format === 'phase' && { splits: () => [0, 1, 2, 3, 4, 5, 6, 7, 8] }),
        ...(spec.format === 'bytes' && { incrs: BYTE_STEPS })
      }
    ]
    if (hasRight) {
      axes.push({
        scale: 'r',
        side: 1,
        grid: { show: false },
        size: axisSize,
        values: (/** @type {any} */ _u, /** @type {number[]} */ ticks) =>
          ticks.map(v => (v === null ? '' : rightTick(v)))
      })
    }
    return axes
  }

  /**
   * The time, then each series of the chart with its legend's value.
   * @param {any} spec
   */
  function seriesOf(spec) {
    const yFormat = formatter(spec.format, false)
    const rightFormat = formatter(spec.rightFormat || spec.format, false)
    return [
      {
        label: 'time',
        value: (/** @type {any} */ _u, /** @type {number} */ v) => (v === null || v === undefined ? '–' : seconds(v))
      }
    ].concat(
      spec.series.map((/** @type {any} */ s) => ({
        label: s.label,
        stroke: s.color,
        width: s.width || 1.5,
        dash: s.dash,
        scale: s.axis === 1 ? 'r' : 'y',
        spanGaps: false,
        paths: s.step ? uPlot.paths.stepped({ align: 1 }) : undefined,
        value: (/** @type {any} */ _u, /** @type {number} */ v) =>
          v === null || v === undefined ? '–' : (s.axis === 1 ? rightFormat : yFormat)(v)
      }))
    )
  }

  /** @type {{ chart: any, plot: HTMLElement }[]} */
  const drawn = []
  let rendered = 0
  const containers = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.chart[data-chart]'))
  containers.forEach(container => {
    const spec = specs[container.dataset.chart || '']
    if (!spec) {
      container.dataset.points = '0'
      const plot = container.querySelector('.plot')
      if (plot) plot.innerHTML = '<p class="no-data">no data</p>'
      return
    }
    try {
      const chart = draw(container, spec)
      if (chart) drawn.push({ chart, plot: /** @type {HTMLElement} */ (container.querySelector('.plot')) })
      rendered++
    } catch (err) {
      container.dataset.points = '0'
      console.error('chart ' + spec.id + ' failed: ' + (err && /** @type {Error} */ (err).message))
    }
  })
  window.addEventListener('resize', () => {
    for (const { chart, plot } of drawn) chart.setSize({ width: Math.max(plot.clientWidth, 300), height: HEIGHT })
  })
  document.body.dataset.chartsRendered = String(rendered)
})()
