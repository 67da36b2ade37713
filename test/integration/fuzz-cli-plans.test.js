// The CLI samples of the plan, schedule and workload options fuzz files
// (the others are fuzz-cli.test.js's): two files, so that each stays well
// within the time a test file is given on a loaded machine.
import { spawnFuzzFiles } from '../helpers/fuzz-cli.js'

spawnFuzzFiles(['fuzz-plan', 'fuzz-schedule', 'fuzz-workload-options'])
