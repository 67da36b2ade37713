// The fuzz files of the unit loop again, with the samples of refused inputs
// that go through the CLI itself (exit 2, one line, nothing created). Each
// CLI is a process of its own, too costly for the unit loop, which skips
// these samples; the fuzzing before them is the same (the same seed), so the
// sample is the one the unit loop's refusals give.
import t from 'tap'
import { fileURLToPath } from 'node:url'

const FILES = ['fuzz-durations', 'fuzz-mix', 'fuzz-pgbench', 'fuzz-plan', 'fuzz-schedule']

for (const name of FILES) {
  const file = fileURLToPath(new URL(`../unit/${name}.test.js`, import.meta.url))
  const env = { ...process.env, PGLOADGEN_FUZZ_CLI: '1' }
  t.spawn(process.execPath, [file], { env }, `${name}, with the CLI samples`)
}
