// Doubles written as pgbench writes them. pgbench prints through
// PostgreSQL's own snprintf, which spells the special values NaN, Infinity
// and -Infinity and hands finite values to the C library: "%.15g" for a
// variable's text and debug(), "%f" in error messages. The C library rounds
// the exact binary value half to even, where JavaScript's toExponential and
// toFixed round exact ties away from zero, so ties are decided here with
// exact integer arithmetic.

const view = new DataView(new ArrayBuffer(8))

/**
 * The exact value of a finite, non-negative double as mantissa * 2 ** exponent.
 * @param {number} a
 */
function decompose(a) {
  view.setFloat64(0, a)
  const hi = view.getUint32(0)
  const lo = view.getUint32(4)
  const biased = (hi >>> 20) & 0x7ff
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo)
  if (biased === 0) return { mantissa, exponent: -1074 }
  mantissa |= 1n << 52n
  return { mantissa, exponent: biased - 1075 }
}

/**
 * a * 10 ** shift as a fraction of integers, a = mantissa * 2 ** exponent.
 * @param {{ mantissa: bigint, exponent: number }} parts
 * @param {number} shift
 */
function scaled({ mantissa, exponent }, shift) {
  let num = mantissa
  let den = 1n
  if (exponent >= 0) num <<= BigInt(exponent)
  else den <<= BigInt(-exponent)
  if (shift >= 0) num *= 10n ** BigInt(shift)
  else den *= 10n ** BigInt(-shift)
  return { num, den }
}

/**
 * num / den rounded to an integer, ties to even, as the C library does.
 * @param {bigint} num
 * @param {bigint} den
 */
function roundHalfEven(num, den) {
  const q = num / den
  const twice = (num % den) * 2n
  if (twice > den || (twice === den && (q & 1n) === 1n)) return q + 1n
  return q
}

/**
 * @param {number} x
 * @returns {string | undefined}
 */
function special(x) {
  if (Number.isNaN(x)) return 'NaN'
  if (x === Infinity) return 'Infinity'
  if (x === -Infinity) return '-Infinity'
  return undefined
}

/**
 * The `precision` significant digits of a finite positive double, exactly
 * rounded half to even, and the decimal exponent of the first one.
 * @param {number} a
 * @param {number} precision
 * @returns {{ digits: string, exponent: number }}
 */
function significantDigits(a, precision) {
  const probe = a.toExponential(precision)
  // A tie needs the exact value to end in 5 one digit past the precision;
  // only then can the C library and JavaScript disagree.
  if (probe[precision + 1] !== '5') {
    const rounded = a.toExponential(precision - 1)
    const e = rounded.indexOf('e')
    const digits = rounded[0] + rounded.slice(2, e)
    return { digits, exponent: Number(rounded.slice(e + 1)) }
  }
  const parts = decompose(a)
  const low = 10n ** BigInt(precision - 1)
  const high = low * 10n
  let exponent = Number(probe.slice(probe.indexOf('e') + 1))
  for (;;) {
    const { num, den } = scaled(parts, precision - 1 - exponent)
    const whole = num / den
    if (whole >= high) {
      exponent++
      continue
    }
    if (whole < low) {
      exponent--
      continue
    }
    let q = roundHalfEven(num, den)
    if (q === high) {
      q = low
      exponent++
    }
    return { digits: q.toString(), exponent }
  }
}

/**
 * A double as C's printf("%.*g", precision, x) writes it, with PostgreSQL's
 * spelling of NaN and the infinities.
 * @param {number} x
 * @param {number} [precision]  significant digits, 15 (DBL_DIG) by default
 */
export function formatGeneral(x, precision = 15) {
  const text = special(x)
  if (text !== undefined) return text
  if (x === 0) return Object.is(x, -0) ? '-0' : '0'
  const sign = x < 0 ? '-' : ''
  const { digits, exponent } = significantDigits(Math.abs(x), precision)
  if (exponent < -4 || exponent >= precision) {
    const fraction = digits.slice(1).replace(/0+$/, '')
    const e = Math.abs(exponent)
    const mantissa = `${sign}${digits[0]}${fraction === '' ? '' : '.' + fraction}`
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`
  }
  let whole, fraction
  if (exponent >= 0) {
    whole = digits.slice(0, exponent + 1)
    fraction = digits.slice(exponent + 1)
  } else {
    whole = '0'
    fraction = '0'.repeat(-exponent - 1) + digits
  }
  fraction = fraction.replace(/0+$/, '')
  return `${sign}${whole}${fraction === '' ? '' : '.' + fraction}`
}

/**
 * A double as C's printf("%.*f", decimals, x) writes it ("%f" is 6 decimals),
 * with PostgreSQL's spelling of NaN and the infinities.
 * @param {number} x
 * @param {number} [decimals]
 */
export function formatFixed(x, decimals = 6) {
  const text = special(x)
  if (text !== undefined) return text
  const negative = x < 0 || Object.is(x, -0)
  const { num, den } = scaled(decompose(Math.abs(x)), decimals)
  const digits = roundHalfEven(num, den)
    .toString()
    .padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals)
  return `${negative ? '-' : ''}${whole}${decimals > 0 ? '.' + fraction : ''}`
}
