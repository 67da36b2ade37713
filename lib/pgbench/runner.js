import { ScriptRuntimeError } from './errors.js'
import { PipelineAbortedError } from '../wire/errors.js'
import { valueToBoolean } from './expression/values.js'
import {
  ELIF,
  ELSE,
  END_PIPELINE,
  ENDIF,
  IF,
  KEEP_NONE,
  KEEP_ONE,
  SET,
  SLEEP,
  SQL,
  START_PIPELINE,
  SYNC_PIPELINE
} from './script/commands.js'
import { keepResults } from './runner/results.js'
import { sleep, sleepMicroseconds } from './runner/sleep.js'

// The interpreter of parsed pgbench scripts: one client runs one script at a
// time on its connection, with its own variables and random state, as a
// pgbench client does (advanceConnectionState / executeMetaCommand). A run
// that fails rejects with the server's error as it came, or with a
// ScriptRuntimeError "FILE:LINE: message" in pgbench's words, after leaving
// the connection ready for the next script: pipeline synced, transaction
// rolled back.

/** @typedef {import('./script/commands.js').Script} Script */
/** @typedef {import('./script/commands.js').SqlCommand} SqlCommand */
/** @typedef {import('../wire/wire-connection.js').WireConnection} WireConnection */
/** @typedef {import('./variables.js').Variables} Variables */
/** @typedef {import('./random.js').Random} Random */

const PIPELINED = Object.freeze({ sync: false })
const WITH_ROWS = Object.freeze({ rows: true })
const noop = () => {}

export class ScriptClient {
  /**
   * @param {{ clientId: number, variables: Variables, random: Random }} options
   *   variables: this client's own, with -D's and pgbench's automatic ones
   */
  constructor({ clientId, variables, random }) {
    this.clientId = clientId
    this.variables = variables
    this.random = random
    /** what compiled expressions read; command labels debug()'s output */
    this.context = { variables, random, command: 0 }
    /** @type {WeakMap<Script, Array<Array<string | null>>>} a parameter array per SQL command, reused */
    this.parameters = new WeakMap()
    /** @type {Array<Promise<unknown>> | null} what was sent since \startpipeline */
    this.pipeline = null
  }

  /**
   * Runs the whole script once on conn.
   * @param {Script} script
   * @param {WireConnection} conn
   * @returns {Promise<void>}
   */
  async run(script, conn) {
    const commands = script.commands
    const parameters = this.parameters.get(script) ?? this.parametersOf(script)
    const simple = conn.protocol === 'simple'
    let pc = 0
    let at = 0
    try {
      while (pc < commands.length) {
        at = pc
        const command = commands[pc]
        switch (command.kind) {
          case SQL:
            if (simple) await this.simpleSql(command, conn)
            else if (command.keep === KEEP_NONE && this.pipeline === null)
              await conn.run(command.statement, this.bind(command, parameters[pc]))
            else await this.extendedSql(command, parameters[pc], conn)
            pc++
            break
          case SET:
            this.context.command = pc
            this.variables.set(command.variable, command.evaluate(this.context))
            pc++
            break
          case IF: {
            // the first true branch runs; the others are jumped over
            let branch = command
            for (;;) {
              this.context.command = at
              if (valueToBoolean(branch.evaluate(this.context))) {
                pc = at + 1
                break
              }
              const next = commands[branch.next]
              if (next.kind !== ELIF) {
                pc = branch.next + 1
                break
              }
              at = branch.next
              branch = next
            }
            break
          }
          case ELIF:
          case ELSE:
            // reached from the end of the branch that ran
            pc = command.endif + 1
            break
          case ENDIF:
            pc++
            break
          case SLEEP: {
            const microseconds = sleepMicroseconds(command, this.variables)
            if (microseconds > 0) await sleep(microseconds)
            pc++
            break
          }
          case START_PIPELINE:
          case SYNC_PIPELINE:
          case END_PIPELINE:
            await this.pipelineCommand(command.kind, conn, simple)
            pc++
            break
        }
      }
      if (this.pipeline !== null) throw new ScriptRuntimeError('end of script reached with pipeline open')
      if (conn.transactionStatus !== 'I') {
        throw new ScriptRuntimeError('end of script reached without completing the last transaction')
      }
    } catch (err) {
      await this.recover(conn)
      if (err instanceof ScriptRuntimeError)
        throw new ScriptRuntimeError(`${script.file}:${commands[at].line}: ` + err.message, { cause: err })
      throw err
    }
  }

  /**
   * \startpipeline, \syncpipeline and \endpipeline.
   * @param {import('./script/commands.js').PipelineCommand['kind']} kind
   * @param {WireConnection} conn
   * @param {boolean} simple   the simple query protocol, which has no pipeline
   */
  async pipelineCommand(kind, conn, simple) {
    if (kind === START_PIPELINE) {
      if (simple) throw new ScriptRuntimeError('cannot use pipeline mode with the simple query protocol')
      if (this.pipeline !== null) throw new ScriptRuntimeError('already in pipeline mode')
      this.pipeline = []
    } else if (kind === SYNC_PIPELINE) {
      if (this.pipeline === null) throw new ScriptRuntimeError('not in pipeline mode')
      this.pipeline.push(quiet(conn.sync()))
    } else {
      await this.endPipeline(conn)
    }
  }

  /**
   * @param {Script} script
   * @returns {Array<Array<string | null>>}
   */
  parametersOf(script) {
    const parameters = script.commands.map(command =>
      command.kind === SQL ? new Array(command.variables.length).fill(null) : []
    )
    this.parameters.set(script, parameters)
    return parameters
  }

  /**
   * The variables' texts as the statement's parameters. pgbench sends an
   * undefined variable as NULL.
   * @param {SqlCommand} command
   * @param {Array<string | null>} params
   */
  bind(command, params) {
    if (command.paramsError !== null) throw new ScriptRuntimeError(command.paramsError)
    const names = command.variables
    const variables = this.variables
    for (let i = 0; i < names.length; i++) params[i] = variables.text(names[i]) ?? null
    return params
  }

  /**
   * An SQL command in the extended protocol, in a pipeline or keeping rows.
   * @param {SqlCommand} command
   * @param {Array<string | null>} params
   * @param {WireConnection} conn
   */
  async extendedSql(command, params, conn) {
    if (this.pipeline !== null) {
      if (command.keep !== KEEP_NONE) {
        throw new ScriptRuntimeError(`\\${command.keep === KEEP_ONE ? 'gset' : 'aset'} is not allowed in pipeline mode`)
      }
      this.pipeline.push(quiet(conn.run(command.statement, this.bind(command, params), PIPELINED)))
      return
    }
    const result = await conn.run(command.statement, this.bind(command, params), WITH_ROWS)
    keepResults(command, [result], this.variables)
  }

  /**
   * An SQL command in the simple protocol: each :name whose variable exists
   * becomes the variable's text, as it is; the others stay as written.
   * @param {SqlCommand} command
   * @param {WireConnection} conn
   */
  async simpleSql(command, conn) {
    const { variables: names, pieces, references } = command
    const variables = this.variables
    let text = pieces[0]
    for (let i = 0; i < names.length; i++) text += (variables.text(names[i]) ?? references[i]) + pieces[i + 1]
    if (command.keep === KEEP_NONE) {
      await conn.simpleQuery(text)
      return
    }
    keepResults(command, await conn.simpleQuery(text, WITH_ROWS), this.variables)
  }

  /**
   * \endpipeline: a Sync, then every result of the pipeline; the first
   * statement that failed fails the script (those the server skipped after
   * it only say so).
   * @param {WireConnection} conn
   */
  async endPipeline(conn) {
    const pending = this.pipeline
    if (pending === null) throw new ScriptRuntimeError('not in pipeline mode')
    pending.push(quiet(conn.sync()))
    this.pipeline = null
    /** @type {unknown} */
    let failure = null
    for (const result of pending) {
      try {
        await result
      } catch (err) {
        if (failure === null || (failure instanceof PipelineAbortedError && !(err instanceof PipelineAbortedError))) {
          failure = err
        }
      }
    }
    if (failure !== null) throw failure
  }

  /**
   * After a failure: the connection as the next script needs it, unless it
   * is broken (the caller reconnects).
   * @param {WireConnection} conn
   */
  async recover(conn) {
    const pending = this.pipeline
    this.pipeline = null
    if (conn.broken) return
    try {
      if (pending !== null) {
        pending.push(conn.sync())
        await Promise.allSettled(pending)
      }
      if (conn.transactionStatus !== 'I') await conn.simpleQuery('ROLLBACK')
    } catch {
      // the connection failed as well: it is broken now, and the script's
      // own error is the one to report
    }
  }
}

/**
 * A promise awaited later: marked handled now, so that an early rejection
 * is not reported as unhandled.
 * @template T
 * @param {Promise<T>} promise
 */
function quiet(promise) {
  promise.catch(noop)
  return promise
}
