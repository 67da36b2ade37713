// The fuzz files of the unit loop again, with the samples of refused inputs
// that go through the CLI itself (exit 2, one line, nothing created). Each
// CLI is a process of its own, too costly for the unit loop, which skips
// these samples; the fuzzing before them follows the same seed, so the
// sample is drawn from the unit loop's own refusals.
import t from 'tap'
import { fileURLToPath } from 'node:url'

/**
 * Runs each of the unit loop's fuzz files, by name, with PGLOADGEN_FUZZ_CLI=1.
 * @param {string[]} names
 */
export function spawnFuzzFiles(names) {
  for (const name of names) {
    const file = fileURLToPath(new URL(`../unit/${name}.test.js`, import.meta.url))
    const env = { ...process.env, PGLOADGEN_FUZZ_CLI: '1' }
    t.spawn(process.execPath, [file], { env }, `${name}, with the CLI samples`)
  }
}
