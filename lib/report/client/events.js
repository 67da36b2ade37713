// The report page's event marks, inlined into report.html before draw.js:
// a uPlot plugin that draws a run's events as shaded bands (actions, from
// start to end) and vertical lines (points), labels them, and shows what
// the actions under the cursor did (their detail: what a retention run
// removed, a statement). draw.js finds it as window.pgloadgenEventsPlugin.
/* global window, document, devicePixelRatio */
;(function () {
  /**
   * What the bands under the cursor did (their detail), in a box by the
   * cursor; hidden off the bands.
   * @param {any[]} events
   */
  function bandTips(events) {
    const bands = events.filter(e => e.to !== null && e.detail)
    /** @type {HTMLElement | null} */
    let tip = null
    /** @param {any} u */
    return function (u) {
      const left = u.cursor.left
      const hits = []
      /** @type {Set<string>} */
      const shown = new Set()
      if (bands.length && left !== null && left !== undefined && left >= 0) {
        for (const band of bands) {
          const x0 = u.valToPos(band.from, 'x')
          const x1 = Math.max(u.valToPos(band.to, 'x'), x0 + 3)
          // the same action of two repetitions: once
          const key = band.label + '\u0000' + band.detail
          if (left >= x0 - 1 && left <= x1 + 1 && !shown.has(key)) {
            shown.add(key)
            hits.push(band)
          }
        }
      }
      if (hits.length === 0) {
        if (tip) tip.style.display = 'none'
        return
      }
      if (!tip) {
        tip = document.createElement('div')
        tip.className = 'band-tip'
        u.over.appendChild(tip)
      }
      const box = tip
      box.textContent = ''
      for (const band of hits.slice(0, 4)) {
        const title = document.createElement('strong')
        title.textContent = band.label
        title.style.color = band.color
        const text = document.createElement('div')
        text.textContent = band.detail
        box.appendChild(title)
        box.appendChild(text)
      }
      box.style.borderLeftColor = hits[0].color
      box.style.display = 'block'
      const width = box.offsetWidth
      box.style.left = Math.max(0, Math.min(left + 12, u.over.clientWidth - width - 2)) + 'px'
      // below the cursor, or above it where the plot ends
      const top = (u.cursor.top || 0) + 12
      box.style.top =
        Math.max(0, top + box.offsetHeight > u.over.clientHeight ? top - 24 - box.offsetHeight : top) + 'px'
    }
  }

  /**
   * An event's left and right edges on the canvas (the same for a point).
   * @param {any} u
   * @param {any} event
   */
  function span(u, event) {
    const x0 = u.valToPos(event.from, 'x', true)
    const x1 = event.to === null ? x0 : u.valToPos(event.to, 'x', true)
    return [x0, Math.max(x1, x0)]
  }

  /**
   * Draws the events: bands and lines below the series, labels on top.
   * @param {any[]} events
   */
  function eventsPlugin(events) {
    const byTime = events.slice().sort((a, b) => a.from - b.from)
    return {
      hooks: {
        setCursor: bandTips(events),
        /** @param {any} u */
        drawAxes: function (u) {
          drawMarks(u, events)
        },
        /** @param {any} u */
        draw: function (u) {
          drawLabels(u, byTime)
        }
      }
    }
  }

  /**
   * The bands (actions, at least 3 px wide) and dashed lines (points),
   * clipped to the plot.
   * @param {any} u
   * @param {any[]} events
   */
  function drawMarks(u, events) {
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
  }

  /**
   * Each event's label once, at its start, in up to three rows that do not
   * overlap.
   * @param {any} u
   * @param {any[]} byTime   the events in time order
   */
  function drawLabels(u, byTime) {
    const ctx = u.ctx
    const { left, top, width } = u.bbox
    const px = devicePixelRatio
    ctx.save()
    ctx.font = 11 * px + 'px system-ui, sans-serif'
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

  ;/** @type {any} */ (window).pgloadgenEventsPlugin = eventsPlugin
})()
