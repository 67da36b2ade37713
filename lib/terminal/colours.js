import picocolors from 'picocolors'

// Colour on stderr only where a person reads it: a terminal, and never
// when NO_COLOR is set (https://no-color.org) or FORCE_COLOR is 0. A log
// file or a pipe gets plain text. picocolors writes the escape codes;
// this module only decides whether it may.

/** @typedef {ReturnType<typeof picocolors.createColors>} Colours */

/**
 * @param {{ isTTY?: boolean }} stream
 * @param {NodeJS.ProcessEnv} [env]
 */
export function colourWanted(stream, env = process.env) {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false
  if (env.TERM === 'dumb') return false
  return stream.isTTY === true
}

/**
 * The colours for a stream: functions that return their text unchanged
 * when colour is not wanted.
 * @param {{ isTTY?: boolean }} stream
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {Colours}
 */
export function coloursFor(stream, env = process.env) {
  return picocolors.createColors(colourWanted(stream, env))
}

/** No colour at all: for text that goes to a file or a test. */
export const PLAIN = picocolors.createColors(false)
