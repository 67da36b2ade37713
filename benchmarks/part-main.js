// The command line of a bench part run by itself (`node benchmarks/<part>/index.js`
// or through benchmarks/run.js): its options read once, a bad one a line
// and exit 2; then the part, whose false answer (a target missed) or error
// exits 1, the error's first line said.

/**
 * @template O
 * @param {string} name                  the part, as its lines name it
 * @param {string[]} args
 * @param {(args: string[]) => O} parse  throws on a bad option
 * @param {(options: O) => Promise<boolean>} run   true when every target was met
 */
export async function partMain(name, args, parse, run) {
  /** @type {O} */
  let options
  try {
    options = parse(args)
  } catch (err) {
    process.stderr.write(`bench ${name}: ${err instanceof Error ? err.message.split(/\.(?:\s|$)/)[0] : String(err)}\n`)
    process.exit(2)
  }
  try {
    if (!(await run(options))) process.exitCode = 1
  } catch (err) {
    process.stderr.write(`bench ${name}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}\n`)
    process.exitCode = 1
  }
}
