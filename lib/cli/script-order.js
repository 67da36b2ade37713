/**
 * pgbench keeps -f and -b scripts in command-line order (it is the order of
 * their request types here); yargs gives the two lists apart. The order is
 * read back from the raw arguments, and used only when it accounts for
 * exactly the scripts yargs parsed: otherwise files come first.
 * @param {readonly string[]} argv   the raw arguments
 * @param {{ files: string[], builtins: string[] }} parsed  -S and -N already turned into builtins
 * @returns {Array<{ file: string } | { builtin: string }>}
 */
export function scriptOrder(argv, { files, builtins }) {
  /** @type {Array<{ file: string } | { builtin: string }>} */
  const order = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]
    if (token === '--') break
    const file = valueOf(token, argv[i + 1], '-f', '--file')
    const builtin = valueOf(token, argv[i + 1], '-b', '--builtin')
    if (file) {
      order.push({ file: file.value })
      if (file.next) i++
    } else if (builtin) {
      order.push({ builtin: builtin.value })
      if (builtin.next) i++
    } else if (token === '-S' || token === '--select-only') {
      order.push({ builtin: 'select-only' })
    } else if (token === '-N' || token === '--skip-some-updates') {
      order.push({ builtin: 'simple-update' })
    }
  }
  const same = (/** @type {string[]} */ a, /** @type {string[]} */ b) =>
    a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i])
  const scannedFiles = order.flatMap(spec => ('file' in spec ? [spec.file] : []))
  const scannedBuiltins = order.flatMap(spec => ('builtin' in spec ? [spec.builtin] : []))
  if (same(scannedFiles, files) && same(scannedBuiltins, builtins)) return order
  return [...files.map(file => ({ file })), ...builtins.map(builtin => ({ builtin }))]
}

/**
 * The value of -x VALUE, -xVALUE, --long VALUE or --long=VALUE.
 * @param {string} token
 * @param {string | undefined} following
 * @param {string} short
 * @param {string} long
 * @returns {{ value: string, next: boolean } | null}  next: the value was the following argument
 */
function valueOf(token, following, short, long) {
  if (token === short || token === long) return following === undefined ? null : { value: following, next: true }
  if (token.startsWith(`${long}=`)) return { value: token.slice(long.length + 1), next: false }
  if (token.startsWith(short) && !token.startsWith('--') && token.length > 2) {
    return { value: token.slice(2).replace(/^=/, ''), next: false }
  }
  return null
}
