// The test for a stretch that leaves its level and comes back (an epidemic
// change): within z[from, to), the stretch [a, b) shifted by d against the
// level outside it, in the prewhitened AR(1) frame of change-scan.js. In
// y_t = z_t − ρ·z_(t−1) the stretch shows as d at a, (1 − ρ)·d inside and
// −ρ·d at b, the first point back; a stretch that runs to the end (b = to)
// has no way back and is a shift at a. The regression of y on that pattern
// g and a constant gives z = Σ(g − ḡ)·y / (s·√Σ(g − ḡ)²), as for one shift;
// a hole's evidence is then both of its edges, where a scan for one shift
// sees a step with the wrong level after it. Every pair is scored in O(1)
// from prefix sums. docs/change-points.md.

/**
 * The stretch's z for [a, b) within z[from, to).
 * @param {import('./change-scan.js').Prewhitened} p
 * @param {number} from
 * @param {number} to
 * @param {number} a     the stretch's first point
 * @param {number} b     the first point after it (to: it runs to the end)
 */
export function stretchZ(p, from, to, a, b) {
  const { prefix, y, rho, scale } = p
  const count = to - from - 1
  if (count < 2 || scale <= 0 || a <= from || b <= a || b > to) return 0
  const keep = 1 - rho
  const inner = b - a - 1
  const back = b < to ? rho : 0
  const sumG = 1 + keep * inner - back
  const spread = 1 + keep * keep * inner + back * back - (sumG * sumG) / count
  if (spread <= 1e-12) return 0
  const sumGY = y[a] + keep * (prefix[b] - prefix[a + 1]) - (b < to ? back * y[b] : 0)
  return (sumGY - (sumG * (prefix[to] - prefix[from + 1])) / count) / (scale * Math.sqrt(spread))
}

/**
 * The best stretch of z[from, to): at least `margin` points inside it and
 * before it, and after it unless it runs to the end.
 * @param {import('./change-scan.js').Prewhitened} p
 * @param {number} from
 * @param {number} to
 * @param {number} margin
 * @returns {{ a: number, b: number, z: number } | null}
 */
export function scanStretches(p, from, to, margin) {
  let best = null
  let bestAbs = -1
  /** @type {(a: number, b: number) => void} */
  const consider = (a, b) => {
    const z = stretchZ(p, from, to, a, b)
    if (Math.abs(z) > bestAbs) {
      bestAbs = Math.abs(z)
      best = { a, b, z }
    }
  }
  for (let a = from + margin; a + margin <= to; a++) {
    for (let b = a + margin; b + margin <= to; b++) consider(a, b)
    consider(a, to)
  }
  return /** @type {{ a: number, b: number, z: number } | null} */ (best)
}

/**
 * How many stretches scanStretches scores in `length` points.
 * @param {number} length
 * @param {number} margin
 */
export function stretchCount(length, margin) {
  let count = 0
  for (let a = margin; a + margin <= length; a++) count += Math.max(0, length - margin - (a + margin) + 1) + 1
  return Math.max(1, count)
}
