// The pgbench script parser: how SQL is split and bound, every backslash
// command, and every load error as one line FILE:LINE: message.
import t from 'tap'
import { ScriptLoadError, ScriptSyntaxError } from '../../lib/pgbench/errors.js'
import { parseScript } from '../../lib/pgbench/scripts.js'
import {
  ELIF,
  ELSE,
  END_PIPELINE,
  ENDIF,
  IF,
  KEEP_ALL,
  KEEP_NONE,
  KEEP_ONE,
  SET,
  SLEEP,
  SQL,
  START_PIPELINE,
  SYNC_PIPELINE
} from '../../lib/pgbench/script/commands.js'

/** @param {string} text */
const parse = text => parseScript(text, { file: 'test.sql' })
/** @param {string} text */
const sqlTexts = text =>
  parse(text)
    .commands.filter(c => c.kind === SQL)
    .map(c => /** @type {any} */ (c).text)

t.test('SQL commands end at an unquoted semicolon and may span lines', async t => {
  t.same(sqlTexts('SELECT 1;\nSELECT\n  2\n;SELECT 3'), ['SELECT 1;', 'SELECT\n  2\n;', 'SELECT 3'])
  t.same(sqlTexts("SELECT 'a;b', \"c;\"\"d\", E'\\';', $$e;f$$, $tag$ $$; $tag$;"), [
    "SELECT 'a;b', \"c;\"\"d\", E'\\';', $$e;f$$, $tag$ $$; $tag$;"
  ])
  t.same(
    sqlTexts('SELECT (1;\n2); SELECT 3;'),
    ['SELECT (1;\n2);', 'SELECT 3;'],
    'a semicolon inside parentheses does not end the command'
  )
  t.same(sqlTexts('SELECT 1 /* a; /* nested; */ still; */;'), ['SELECT 1 /* a; /* nested; */ still; */;'])
  t.same(sqlTexts('SELECT 1 -- not the end; \n + 1;'), ['SELECT 1 -- not the end; \n + 1;'])
  t.same(sqlTexts('SELECT x::int, y::text;'), ['SELECT x::int, y::text;'])
  t.same(sqlTexts('SELECT 1 \\; SELECT 2;'), ['SELECT 1 ; SELECT 2;'], '\\; makes one compound command')
  t.same(sqlTexts('SELECT a\\:b;'), ['SELECT a:b;'])
  t.same(sqlTexts('SELECT :{?x};'), ['SELECT FALSE;'], 'pgbench has no psql variables to test')
  t.same(
    sqlTexts('SELECT $1; SELECT a$b$;'),
    ['SELECT $1;', 'SELECT a$b$;'],
    'no dollar quote after a parameter or inside a name'
  )
  t.same(sqlTexts('SELECT 1e--3\n;'), ['SELECT 1e--3\n;'], '1e- is a token: the dash after it starts no comment')
  const routine =
    'CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END;'
  t.same(sqlTexts(`${routine}\nSELECT 9;`), [routine, 'SELECT 9;'], 'BEGIN ATOMIC ... END hides its semicolons')
  t.same(sqlTexts('CREATE OR REPLACE PROCEDURE p() BEGIN ATOMIC SELECT 1; END; SELECT 2;'), [
    'CREATE OR REPLACE PROCEDURE p() BEGIN ATOMIC SELECT 1; END;',
    'SELECT 2;'
  ])
  t.same(
    sqlTexts('BEGIN; SELECT 1; END;'),
    ['BEGIN;', 'SELECT 1;', 'END;'],
    'a plain transaction block is three commands'
  )
})

t.test('blank lines and -- comments are no commands; unterminated text is one', async t => {
  t.same(sqlTexts('\n\n-- a comment\n   -- another\nSELECT 1;\n\n-- trailing\n'), ['SELECT 1;'])
  t.same(sqlTexts("SELECT 'open"), ["SELECT 'open"])
  t.same(sqlTexts('SELECT 1 -- no semicolon'), ['SELECT 1 -- no semicolon'])
})

t.test('commands know their lines', async t => {
  const script = parse('-- header\n\n\\set a 1\nSELECT\n:a;\n  SELECT 2; SELECT 3;\n\\sleep 1 \\\n ms\nSELECT 4;')
  t.same(
    script.commands.map(c => [c.kind, c.line]),
    [
      [SET, 3],
      [SQL, 4],
      [SQL, 6],
      [SQL, 6],
      [SLEEP, 7],
      [SQL, 9]
    ]
  )
})

t.test(':name references become parameters, one per use, as pgbench numbers them', async t => {
  const [command] = /** @type {any[]} */ (
    parse("UPDATE t SET a = :a::int + :a WHERE b = ':b' AND c::text = :_c1 AND d = :::d AND e = :é;").commands
  )
  t.same(command.variables, ['a', 'a', 'b', '_c1', 'é'])
  t.equal(
    command.statement.text,
    "UPDATE t SET a = $1::int + $2 WHERE b = '$3' AND c::text = $4 AND d = :::d AND e = $5;"
  )
  t.same(command.pieces, [
    'UPDATE t SET a = ',
    '::int + ',
    " WHERE b = '",
    "' AND c::text = ",
    ' AND d = :::d AND e = ',
    ';'
  ])
  t.same(command.references, [':a', ':a', ':b', ':_c1', ':é'])
  t.match(command.statement.name, /^pgbench_[0-9a-f]{24}$/)
  t.equal(command.keep, KEEP_NONE)
  const again = /** @type {any} */ (
    parse("SELECT 1;\nUPDATE t SET a = :a::int + :a WHERE b = ':b' AND c::text = :_c1 AND d = :::d AND e = :é;")
      .commands[1]
  )
  t.equal(again.statement.name, command.statement.name, 'the same statement has the same name')
  const other = /** @type {any} */ (parse('SELECT :a;').commands[0])
  t.not(other.statement.name, command.statement.name)
})

t.test('a statement with more than 255 variables is refused by the extended protocol only', async t => {
  const text = `SELECT ${Array.from({ length: 256 }, (_, i) => `:v${i}`).join(', ')};`
  const [command] = /** @type {any[]} */ (parse(text).commands)
  t.match(command.paramsError, /^statement has too many arguments \(maximum is 255\): SELECT :v0, /)
  t.equal(/** @type {any} */ (parse(text.replace(', :v255', '')).commands[0]).paramsError, null)
})

t.test('\\set parses and compiles its expression, across continued lines', async t => {
  const [set] = /** @type {any[]} */ (
    parse('\\set aid (1021 * random(1, 100000 * :scale)) % \\\n           (100000 * :scale) + 1\nSELECT 1;').commands
  )
  t.equal(set.kind, SET)
  t.equal(set.variable, 'aid')
  t.equal(typeof set.evaluate, 'function')
  t.equal(set.line, 1)
  const upper = /** @type {any} */ (parse('\\SET x 1 + 2\r\n').commands[0])
  t.equal(upper.kind, SET, 'command names are case-insensitive; \\r\\n ends a line')
})

t.test('\\sleep forms', async t => {
  const sleeps = /** @type {any[]} */ (
    parse('\\sleep 2\n\\sleep 10 ms\n\\sleep 5us\n\\sleep :pause s\n\\sleep -3 MS\n\\sleep :d\n').commands
  )
  t.same(
    sleeps.map(s => [s.amount, s.unitUs, s.variable]),
    [
      [2, 1000000, null],
      [10, 1000, null],
      [5, 1, null],
      [0, 1000000, 'pause'],
      [-3, 1000, null],
      [0, 1000000, 'd']
    ]
  )
})

t.test('\\gset and \\aset end the SQL command before them', async t => {
  const commands = /** @type {any[]} */ (
    parse('SELECT 1 AS a \\gset\nSELECT 2 AS b;\n\\gset p_\nSELECT 1 \\; SELECT 2 \\aset q_\nSELECT 3;').commands
  )
  t.same(
    commands.map(c => [c.kind, c.keep, c.prefix, c.text]),
    [
      [SQL, KEEP_ONE, '', 'SELECT 1 AS a '],
      [SQL, KEEP_ONE, 'p_', 'SELECT 2 AS b;'],
      [SQL, KEEP_ALL, 'q_', 'SELECT 1 ; SELECT 2 '],
      [SQL, KEEP_NONE, '', 'SELECT 3;']
    ]
  )
})

t.test('conditionals are linked: each branch to the next and to its \\endif', async t => {
  const script = parse(`\\if :a = 1
SELECT 1;
\\elif :a = 2
  \\if true
  SELECT 2;
  \\endif
\\elif :a = 3
SELECT 3;
\\else
SELECT 4;
\\endif
SELECT 5;`)
  const c = /** @type {any[]} */ (script.commands)
  t.same(
    c.map(x => x.kind),
    [IF, SQL, ELIF, IF, SQL, ENDIF, ELIF, SQL, ELSE, SQL, ENDIF, SQL]
  )
  t.same([c[0].next, c[2].next, c[6].next], [2, 6, 8])
  t.same([c[0].endif, c[2].endif, c[6].endif, c[8].endif, c[10].endif], [10, 10, 10, 10, 10])
  t.same([c[3].next, c[3].endif], [5, 5])
})

t.test('pipeline commands', async t => {
  const kinds = parse('\\startpipeline\nSELECT 1;\n\\syncpipeline\nSELECT 2;\n\\endpipeline\n').commands.map(
    c => c.kind
  )
  t.same(kinds, [START_PIPELINE, SQL, SYNC_PIPELINE, SQL, END_PIPELINE])
})

t.test('a lone backslash is no command', async t => {
  t.same(
    parse('SELECT 1 \\\nSELECT 2;').commands.map(c => c.kind),
    [SQL, SQL]
  )
})

t.test('scripts are named after their file', async t => {
  t.equal(parseScript('SELECT 1;', { file: 'dir/sub/my.script.sql' }).name, 'my.script')
  t.equal(parseScript('SELECT 1;', { file: 'noext' }).name, 'noext')
  t.equal(parseScript('SELECT 1;', { file: '.hidden' }).name, '.hidden')
  const script = parseScript('SELECT 1;', { file: 'a.sql', weight: 3 })
  t.same([script.file, script.description, script.weight, script.usesBuiltin], ['a.sql', 'a.sql', 3, false])
})

/** Each bad script and its one-line error. */
const ERRORS = [
  ['SELECT 1;\n\\foo bar', 'x.sql:2: invalid command in command "foo"'],
  ['\\\\x', 'x.sql:1: invalid command in command "\\x"'],
  ['SELECT 1;\n\n\\shell ls -l', 'x.sql:3: \\shell is not supported by pgloadgen'],
  ['\\setshell v echo 1', 'x.sql:1: \\setshell is not supported by pgloadgen'],
  ['\\SHELL', 'x.sql:1: \\shell is not supported by pgloadgen'],
  ['\\set', 'x.sql:1: missing argument in command "set"'],
  ['\\set 1x 1', 'x.sql:1: invalid variable name: "1x" in command "set"'],
  ['\\set x\n', 'x.sql:1: syntax error at column 7 in command "set"'],
  ['\\set x 1 +\n', 'x.sql:1: syntax error at column 11 in command "set"'],
  ['SELECT 1;\n\\set x nosuch(1)\n', 'x.sql:2: unexpected function name (nosuch) at column 13 in command "set"'],
  ['\\if\n', 'x.sql:1: syntax error at column 4 in command "if"'],
  ['\\if 1\n\\elif\n\\endif', 'x.sql:2: syntax error at column 6 in command "elif"'],
  ['\\sleep', 'x.sql:1: missing argument in command "sleep"'],
  ['\\sleep 1 s extra', 'x.sql:1: too many arguments in command "sleep"'],
  ['\\sleep 1.5', 'x.sql:1: unrecognized time unit, must be us, ms or s (.5) in command "sleep"'],
  ['\\sleep x', 'x.sql:1: invalid sleep time, must be an integer (x) in command "sleep"'],
  ['\\sleep 1ms s', 'x.sql:1: invalid sleep time, must be an integer (1ms) in command "sleep"'],
  ['\\sleep 1 min', 'x.sql:1: unrecognized time unit, must be us, ms or s (min) in command "sleep"'],
  ['\\sleep 3h', 'x.sql:1: unrecognized time unit, must be us, ms or s (h) in command "sleep"'],
  ['\\if 1\n\\else 2\n\\endif', 'x.sql:2: unexpected argument in command "else"'],
  ['\\if 1\n\\endif 2', 'x.sql:2: unexpected argument in command "endif"'],
  ['\\startpipeline now', 'x.sql:1: unexpected argument in command "startpipeline"'],
  ['\\syncpipeline now', 'x.sql:1: unexpected argument in command "syncpipeline"'],
  ['\\endpipeline now', 'x.sql:1: unexpected argument in command "endpipeline"'],
  ['SELECT 1 \\gset a b', 'x.sql:1: too many arguments in command "gset"'],
  ['SELECT 1 \\aset a b', 'x.sql:1: too many arguments in command "aset"'],
  ['\\gset', 'x.sql:1: \\gset must follow an SQL command'],
  ['-- comment\n\\aset', 'x.sql:2: \\gset must follow an SQL command'],
  ['\\set x 1\n\\gset', 'x.sql:2: \\gset must follow an SQL command (\\set x 1)'],
  ['SELECT 1 AS a \\gset\n\\gset', 'x.sql:2: \\gset must follow an SQL command'],
  ['\\elif 1', 'x.sql:1: \\elif without matching \\if'],
  ['SELECT 1;\n\\else', 'x.sql:2: \\else without matching \\if'],
  ['\\endif', 'x.sql:1: \\endif without matching \\if'],
  ['\\if 1\n\\else\n\\else\n\\endif', 'x.sql:3: \\else after \\else'],
  ['\\if 1\n\\else\n\\elif 2\n\\endif', 'x.sql:3: \\elif after \\else'],
  ['\\if 1\nSELECT 1;\n\\if 2\n\\endif', 'x.sql:1: \\if without matching \\endif'],
  ['\\if 1\n\\if 2\n\\endif\n\\if 3\n\\else\nSELECT 1;', 'x.sql:4: \\if without matching \\endif'],
  ['', 'empty command list for script "x.sql"'],
  ['\n-- only comments\n   \n', 'empty command list for script "x.sql"'],
  ['\\\n', 'empty command list for script "x.sql"']
]

t.test('every load error is one line FILE:LINE: message', async t => {
  for (const [text, message] of ERRORS) {
    const err = t.throws(() => parseScript(text, { file: 'x.sql' }), ScriptLoadError, JSON.stringify(text))
    t.equal(err instanceof ScriptSyntaxError, true)
    t.equal(/** @type {Error} */ (err).message, message, JSON.stringify(text))
    t.notMatch(/** @type {Error} */ (err).message, /\n/)
  }
})
