import { ELIF, ELSE, ENDIF, IF } from './commands.js'

// pgbench's static check of \if blocks (CheckConditional), which also links
// each branch to the next one and to its \endif, so that a run jumps instead
// of walking a stack.

/**
 * @param {import('./commands.js').Command[]} commands
 * @returns {{ line: number, message: string } | null}  the first error, if any
 */
export function linkConditionals(commands) {
  /** @type {Array<{ header: number, sawElse: boolean, branches: number[], line: number }>} */
  const open = []
  for (let i = 0; i < commands.length; i++) {
    const command = commands[i]
    const top = open[open.length - 1]
    switch (command.kind) {
      case IF:
        open.push({ header: i, sawElse: false, branches: [i], line: command.line })
        break
      case ELIF:
      case ELSE: {
        const name = command.kind === ELIF ? '\\elif' : '\\else'
        if (top === undefined) return { line: command.line, message: `${name} without matching \\if` }
        if (top.sawElse) return { line: command.line, message: `${name} after \\else` }
        setNext(commands[top.header], i)
        top.header = i
        top.branches.push(i)
        if (command.kind === ELSE) top.sawElse = true
        break
      }
      case ENDIF:
        if (top === undefined) return { line: command.line, message: '\\endif without matching \\if' }
        setNext(commands[top.header], i)
        for (const branch of top.branches) setEndif(commands[branch], i)
        setEndif(command, i)
        open.pop()
        break
    }
  }
  const unclosed = open[open.length - 1]
  if (unclosed !== undefined) return { line: unclosed.line, message: '\\if without matching \\endif' }
  return null
}

/**
 * @param {import('./commands.js').Command} command
 * @param {number} index
 */
function setNext(command, index) {
  if (command.kind === IF || command.kind === ELIF) command.next = index
}

/**
 * @param {import('./commands.js').Command} command
 * @param {number} index
 */
function setEndif(command, index) {
  if (command.kind === IF || command.kind === ELIF || command.kind === ELSE || command.kind === ENDIF) {
    command.endif = index
  }
}
