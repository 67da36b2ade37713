// The stand-in for Intl.Segmenter the CLI loads its modules with
// (lib/terminal/lazy-segmenter.js): what it gives must be what the real
// segmenter gives, for ASCII, which it splits itself, and for anything
// else, which it hands on.
import t from 'tap'
import { withDeferredSegmenter } from '../../lib/terminal/lazy-segmenter.js'

/** @param {Intl.Segmenter} segmenter @param {string} text */
const segments = (segmenter, text) => [...segmenter.segment(text)].map(s => ({ ...s }))

const RealSegmenter = Intl.Segmenter

t.test('the global is the stand-in only while the modules load', async t => {
  const inside = await withDeferredSegmenter(async () => Intl.Segmenter)
  t.not(inside, RealSegmenter, 'a stand-in during load')
  t.equal(Intl.Segmenter, RealSegmenter, 'the real class after')
  await t.rejects(
    withDeferredSegmenter(async () => {
      throw new Error('a module failed to load')
    }),
    /failed to load/
  )
  t.equal(Intl.Segmenter, RealSegmenter, 'the real class after a failed load too')
})

t.test('graphemes of ASCII and of other text are what the real segmenter gives', async t => {
  const Deferred = await withDeferredSegmenter(async () => Intl.Segmenter)
  const real = new RealSegmenter()
  const texts = ['', 'p50 ms', 'insert_row  1268  0', 'tab\there', 'a\r\nb', 'cr\ronly', 'lf\nonly', '\u0000\u007f']
  let all = ''
  for (let c = 0; c < 128; c++) all += String.fromCharCode(c)
  texts.push(all, 'µs', 'naïve', 'e\u0301', '👩‍👩‍👧', '日本語', 'x…y')
  for (const text of texts) {
    const deferred = new Deferred()
    t.same(segments(deferred, text), segments(real, text), JSON.stringify(text))
    t.same(
      deferred.segment(text).containing(1),
      real.segment(text).containing(1),
      `containing(1) of ${JSON.stringify(text)}`
    )
  }
  t.same(new Deferred('en', { granularity: 'word' }).segment('two words').containing(4)?.segment, 'words')
  t.equal(new Deferred().resolvedOptions().granularity, 'grapheme')
})

t.test('ASCII alone never builds the real segmenter', async t => {
  let built = 0
  const Counting = class extends RealSegmenter {
    /** @param {ConstructorParameters<typeof Intl.Segmenter>} args */
    constructor(...args) {
      super(...args)
      built++
    }
  }
  Object.defineProperty(Intl, 'Segmenter', { value: Counting, configurable: true, writable: true })
  try {
    const Deferred = await withDeferredSegmenter(async () => Intl.Segmenter)
    const segmenter = new Deferred()
    for (const text of ['total  2109  0  1053.0', 'metrics on http://127.0.0.1:9187/metrics']) segments(segmenter, text)
    t.equal(built, 0, 'none for ASCII')
    segments(segmenter, 'µs')
    t.equal(built, 1, 'one, at the first other character')
    segments(segmenter, 'more ASCII')
    t.equal(built, 1, 'and it is kept')
  } finally {
    Object.defineProperty(Intl, 'Segmenter', { value: RealSegmenter, configurable: true, writable: true })
  }
})
