// The CLI samples of the plan and schedule fuzz files (the others are
// fuzz-cli.test.js's): two files, so that each stays well within the time a
// test file is given on a loaded machine.
import { spawnFuzzFiles } from '../helpers/fuzz-cli.js'

spawnFuzzFiles(['fuzz-plan', 'fuzz-schedule'])
