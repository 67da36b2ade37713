// The report page's own script, inlined into report.html after uPlot: reads
// the chart specifications from the page's JSON data block and draws each
// chart into its container, with the run's events as shaded bands (actions,
// from start to end) and vertical lines (points). When every chart is drawn,
// document.body.dataset.chartsRendered holds their count and each container
// its number of data points in data-points; a chart without data shows a
// note instead of an empty canvas.
/* global window, document, devicePixelRatio */
(function () {
  /** @type {any} */
  const uPlot = /** @type {any} */ (window).uPlot
  const dataBlock = document.getElementById('report-data')
  const data = JSON.parse(dataBlock ? dataBlock.textContent || '{}' : '{}')
  /** @type {Record<string, any>} */
  const specs = data.charts || {}
  const PHASES = ['none', 'initializing', 'scanning heap', 'vacuuming indexes', 'vacuuming heap', 'cleaning up indexes', 'truncating heap', 'final cleanup', 'other']
  const PHASE_TICKS = ['none', 'init', 'scan heap', 'vac. indexes', 'vac. heap', 'clean indexes', 'truncate', 'final', 'other']
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
  function fixed (value, digits) {
    const abs = Math.abs(value)
    const d = digits !== undefined ? digits : abs >= 100 ? 0 : abs >= 10 ? 1 : 2
    return value.toFixed(d).replace(/\.0+$|(\.\d*?)0+$/, '$1')
  }

  /** @param {number} value */
  function count (value) {
    const abs = Math.abs(value)
    if (abs >= 1e9) return fixed(value / 1e9) + 'G'
    if (abs >= 1e6) return fixed(value / 1e6) + 'M'
    if (abs >= 1e4) return fixed(value / 1e3) + 'k'
    return fixed(value)
  }

  /** @param {number} us */
  function micros (us) {
    if (us >= 1e6) return fixed(us / 1e6) + ' s'
    if (us >= 1e3) return fixed(us / 1e3) + ' ms'
    return fixed(us) + ' µs'
  }

  /** @param {number} value */
  function bytes (value) {
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
  function formatter (format, tick) {
    switch (format) {
      case 'rate': return v => count(v) + (tick ? '' : ' /s')
      case 'us': return micros
      case 'bytes': return bytes
      case 'pct': return v => fixed(v, v >= 10 ? 0 : 1) + ' %'
      case 'phase': return v => (tick ? PHASE_TICKS : PHASES)[Math.round(v)] || ''
      default: return count
    }
  }

  /** @param {number} s */
  function seconds (s) {
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
  function axisSize (u, values, axisIdx, cycleNum) {
    const axis = u.axes[axisIdx]
    if (cycleNum > 1) return axis._size
    let size = axis.ticks.size + axis.gap + 4
    const longest = (values || []).reduce((a, v) => String(v).length > a.length ? String(v) : a, '')
    if (longest !== '') {
      u.ctx.font = axis.font[0]
      size += u.ctx.measureText(longest).width / devicePixelRatio
    }
    return Math.ceil(size)
  }

  /**
   * Draws the events: bands and lines below the series, labels on top.
   * @param {any[]} events
   */
  function eventsPlugin (events) {
    const byTime = events.slice().sort((a, b) => a.from - b.from)
    /**
     * @param {any} u
     * @param {any} event
     */
    function span (u, event) {
      const x0 = u.valToPos(event.from, 'x', true)
      const x1 = event.to === null ? x0 : u.valToPos(event.to, 'x', true)
      return [x0, Math.max(x1, x0)]
    }
    return {
      hooks: {
        /** @param {any} u */
        drawAxes: function (u) {
          const ctx = u.ctx
          const { left, top, width, height } = u.bbox
          ctx.save()
          ctx.beginPath()
          ctx.rect(left, top, width, height)
          ctx.clip()
          for (const event of events) {
            const [x0, x1] = span(u, event)
            ctx.globalAlpha = 1
            if (event.to !== null) {
              // a band at least 3 px wide: a short action stays visible
              const w = Math.max(x1 - x0, 3 * devicePixelRatio)
              ctx.fillStyle = event.color
              ctx.globalAlpha = 0.13
              ctx.fillRect(x0, top, w, height)
              ctx.globalAlpha = 0.55
              ctx.strokeStyle = event.color
              ctx.lineWidth = 1 * devicePixelRatio
              ctx.setLineDash([])
              ctx.beginPath()
              ctx.moveTo(x0, top)
              ctx.lineTo(x0, top + height)
              ctx.moveTo(x0 + w, top)
              ctx.lineTo(x0 + w, top + height)
              ctx.stroke()
            } else {
              ctx.globalAlpha = 0.8
              ctx.strokeStyle = event.color
              ctx.lineWidth = 1.5 * devicePixelRatio
              ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio])
              ctx.beginPath()
              ctx.moveTo(x0, top)
              ctx.lineTo(x0, top + height)
              ctx.stroke()
            }
          }
          ctx.restore()
        },
        /** @param {any} u */
        draw: function (u) {
          const ctx = u.ctx
          const { left, top, width } = u.bbox
          const px = devicePixelRatio
          ctx.save()
          ctx.font = (11 * px) + 'px system-ui, sans-serif'
          ctx.textBaseline = 'top'
          ctx.textAlign = 'left'
          /** @type {number[]} right edge of the last label in each row */
          const rows = []
          /** @type {Set<string>} */
          const seen = new Set()
          for (const event of byTime) {
            const key = event.label
            if (seen.has(key)) continue
            const [x0] = span(u, event)
            if (x0 < left - 1 || x0 > left + width + 1) continue
            seen.add(key)
            const textWidth = ctx.measureText(event.label).width
            const x = Math.min(Math.max(x0 + 3 * px, left + 2 * px), left + width - textWidth - 2 * px)
            let row = rows.findIndex(edge => edge < x)
            if (row === -1) {
              if (rows.length >= 3) continue
              row = rows.length
              rows.push(0)
            }
            rows[row] = x + textWidth + 6 * px
            const y = top + 2 * px + row * 14 * px
            ctx.globalAlpha = 0.85
            ctx.fillStyle = '#fff'
            ctx.fillRect(x - 2 * px, y - 1 * px, textWidth + 4 * px, 13 * px)
            ctx.globalAlpha = 1
            ctx.fillStyle = event.color
            ctx.fillText(event.label, x, y)
          }
          ctx.restore()
        }
      }
    }
  }

  /**
   * @param {HTMLElement} container
   * @param {any} spec
   * @returns {any} the uPlot instance, or null for a chart without data
   */
  function draw (container, spec) {
    const plot = /** @type {HTMLElement} */ (container.querySelector('.plot'))
    const log = !!spec.log
    let points = 0
    const tables = spec.series.map((/** @type {any} */ s) => {
      const y = s.y.map((/** @type {any} */ v) => (typeof v === 'number' && isFinite(v) && (!log || v > 0)) ? v : null)
      for (const v of y) if (v !== null) points++
      return [s.x, y]
    })
    container.dataset.points = String(points)
    if (points === 0) {
      plot.innerHTML = '<p class="no-data">no data: nothing was recorded for this chart</p>'
      return null
    }
    const aligned = uPlot.join(tables)
    const yFormat = formatter(spec.format, false)
    const yTick = formatter(spec.format, true)
    const rightFormat = formatter(spec.rightFormat || spec.format, false)
    const rightTick = formatter(spec.rightFormat || spec.format, true)
    const hasRight = spec.series.some((/** @type {any} */ s) => s.axis === 1)
    /**
     * @param {boolean} zero
     * @returns {any}
     */
    const range = (zero) => (/** @type {any} */ _u, /** @type {number} */ min, /** @type {number} */ max) => {
      if (min === null || max === null) return [0, 1]
      const lo = zero ? Math.min(0, min) : min
      const hi = max
      if (hi === lo) return zero && lo === 0 ? [0, 1] : [lo - (Math.abs(lo) || 1) * 0.1, hi + (Math.abs(hi) || 1) * 0.1]
      const pad = (hi - lo) * 0.06
      return [zero && lo === 0 ? 0 : lo - pad, hi + pad]
    }
    /** @type {any} */
    const scales = {
      x: { time: false, range: spec.xRange ? () => spec.xRange : undefined },
      y: log ? { distr: 3, log: 10 } : spec.format === 'phase' ? { range: [0, 8.3] } : { range: range(!!spec.zero) },
      r: spec.rightFormat === 'pct' ? { range: [0, 105] } : { range: range(true) }
    }
    /** @type {Record<string, any>[]} */
    const axes = [
      { values: (/** @type {any} */ _u, /** @type {number[]} */ ticks) => ticks.map(seconds), size: 36, incrs: SECOND_STEPS },
      {
        scale: 'y',
        values: (/** @type {any} */ _u, /** @type {number[]} */ ticks) => ticks.map(v => v === null ? '' : yTick(v)),
        size: axisSize,
        ...(spec.format === 'phase' && { splits: () => [0, 1, 2, 3, 4, 5, 6, 7, 8] }),
        ...(spec.format === 'bytes' && { incrs: BYTE_STEPS })
      }
    ]
    if (hasRight) {
      axes.push({ scale: 'r', side: 1, grid: { show: false }, size: axisSize, values: (/** @type {any} */ _u, /** @type {number[]} */ ticks) => ticks.map(v => v === null ? '' : rightTick(v)) })
    }
    const series = [{ label: 'time', value: (/** @type {any} */ _u, /** @type {number} */ v) => v === null || v === undefined ? '–' : seconds(v) }].concat(spec.series.map((/** @type {any} */ s) => ({
      label: s.label,
      stroke: s.color,
      width: s.width || 1.5,
      dash: s.dash,
      scale: s.axis === 1 ? 'r' : 'y',
      spanGaps: false,
      paths: s.step ? uPlot.paths.stepped({ align: 1 }) : undefined,
      value: (/** @type {any} */ _u, /** @type {number} */ v) => v === null || v === undefined ? '–' : (s.axis === 1 ? rightFormat : yFormat)(v)
    })))
    const options = {
      width: Math.max(plot.clientWidth, 300),
      height: HEIGHT,
      scales,
      axes,
      series,
      legend: { live: true },
      cursor: { sync: { key: spec.sync || 'report' }, drag: { x: true, y: false } },
      plugins: [eventsPlugin(spec.events || [])]
    }
    return new uPlot(options, aligned, plot)
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
