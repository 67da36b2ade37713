// string-width (which the CLI's parser, yargs, loads, and our tables use)
// builds an `Intl.Segmenter` as it loads, and yargs measures its help text
// with it on every command. Building one loads ICU's break-iterator rules:
// about 3.8 MiB of resident memory, while the text a run measures is
// ASCII. While the CLI's modules load, `Intl.Segmenter` is a stand-in: it
// splits ASCII text into graphemes itself and builds the real segmenter,
// with the same arguments, the first time it is given anything else. The
// global is put back right after, so code that runs later gets the real
// class.
//
// In ASCII every character is a grapheme of its own, except a carriage
// return followed by a line feed, which is one (Unicode's UAX #29, rule
// GB3): such text goes to the real segmenter.

/**
 * ASCII without a CR LF pair.
 * @param {string} text
 */
function simpleAscii(text) {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c > 0x7f || (c === 0x0d && text.charCodeAt(i + 1) === 0x0a)) return false
  }
  return true
}

/**
 * The segments of simple ASCII text: one a character, each as
 * `Intl.Segmenter` gives a grapheme ({ segment, index, input }).
 */
class AsciiSegments {
  /** @param {string} input */
  constructor(input) {
    this.input = input
  }

  /** @param {number} [index] */
  containing(index = 0) {
    const at = Math.trunc(Number(index))
    if (!(at >= 0 && at < this.input.length)) return undefined
    return { segment: this.input[at], index: at, input: this.input }
  }

  *[Symbol.iterator]() {
    for (let i = 0; i < this.input.length; i++) yield { segment: this.input[i], index: i, input: this.input }
  }
}

/** A segmenter that becomes a real `Intl.Segmenter` when given more than simple ASCII. */
class DeferredSegmenter {
  /** @type {typeof Intl.Segmenter} the real class, set by withDeferredSegmenter */
  static Real = Intl.Segmenter

  /** @param {ConstructorParameters<typeof Intl.Segmenter>} args */
  constructor(...args) {
    this.args = args
    this.graphemes = (args[1]?.granularity ?? 'grapheme') === 'grapheme'
    /** @type {Intl.Segmenter | null} */
    this.real = null
  }

  /** @returns {Intl.Segmenter} */
  built() {
    if (this.real === null) this.real = new DeferredSegmenter.Real(...this.args)
    return this.real
  }

  /** @param {string} input */
  segment(input) {
    const text = String(input)
    if (this.real === null && this.graphemes && simpleAscii(text)) return new AsciiSegments(text)
    return this.built().segment(text)
  }

  resolvedOptions() {
    return this.built().resolvedOptions()
  }
}

/**
 * Runs load (an import of modules that may build segmenters as they load)
 * with `Intl.Segmenter` deferred.
 * @template T
 * @param {() => Promise<T>} load
 * @returns {Promise<T>}
 */
export async function withDeferredSegmenter(load) {
  const descriptor = Object.getOwnPropertyDescriptor(Intl, 'Segmenter')
  if (!descriptor?.configurable) return load()
  DeferredSegmenter.Real = descriptor.value
  Object.defineProperty(Intl, 'Segmenter', { ...descriptor, value: DeferredSegmenter })
  try {
    return await load()
  } finally {
    Object.defineProperty(Intl, 'Segmenter', descriptor)
  }
}
