// Student's t distribution, for the intervals of t-interval.js: its
// distribution function from the regularized incomplete beta function (a
// continued fraction, evaluated by the modified Lentz method), and its
// quantiles by bisection. Degrees of freedom need not be whole (Welch's
// interval gives fractional ones).

const EPSILON = 1e-12
const TINY = 1e-300
const MAX_TERMS = 300

/**
 * ln Γ(x) for x > 0 (Lanczos approximation, g = 7, nine coefficients).
 * @param {number} x
 * @returns {number}
 */
export function logGamma(x) {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7
  ]
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x)
  const z = x - 1
  let sum = c[0]
  for (let i = 1; i < 9; i++) sum += c[i] / (z + i)
  const t = z + 7.5
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum)
}

/**
 * The continued fraction of the incomplete beta function.
 * @param {number} a
 * @param {number} b
 * @param {number} x
 */
function betaFraction(a, b, x) {
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < TINY) d = TINY
  d = 1 / d
  let h = d
  for (let m = 1; m <= MAX_TERMS; m++) {
    const m2 = 2 * m
    for (const aa of [
      (m * (b - m) * x) / ((a + m2 - 1) * (a + m2)),
      (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))
    ]) {
      d = 1 + aa * d
      if (Math.abs(d) < TINY) d = TINY
      c = 1 + aa / c
      if (Math.abs(c) < TINY) c = TINY
      d = 1 / d
      h *= d * c
    }
    if (Math.abs(d * c - 1) < EPSILON) break
  }
  return h
}

/**
 * The regularized incomplete beta function I_x(a, b).
 * @param {number} x  0 to 1
 * @param {number} a
 * @param {number} b
 */
export function incompleteBeta(x, a, b) {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b
}

/**
 * P(T ≤ t) for Student's t with df degrees of freedom.
 * @param {number} t
 * @param {number} df  above 0
 */
export function studentCdf(t, df) {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5)
  return t >= 0 ? 1 - tail : tail
}

/**
 * The p-quantile of Student's t with df degrees of freedom (0 < p < 1).
 * @param {number} p
 * @param {number} df
 * @returns {number}
 */
export function studentQuantile(p, df) {
  if (p === 0.5) return 0
  if (p < 0.5) return -studentQuantile(1 - p, df)
  let lo = 0
  let hi = 1
  while (studentCdf(hi, df) < p) hi *= 2
  for (let i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
    const mid = (lo + hi) / 2
    if (studentCdf(mid, df) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}
