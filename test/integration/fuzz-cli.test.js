// The CLI samples of the duration, mix and pgbench fuzz files (the plan and
// schedule ones are fuzz-cli-plans.test.js's): test/helpers/fuzz-cli.js.
import { spawnFuzzFiles } from '../helpers/fuzz-cli.js'

spawnFuzzFiles(['fuzz-durations', 'fuzz-mix', 'fuzz-pgbench'])
