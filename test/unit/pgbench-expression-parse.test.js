// pgbench's expression grammar: tokens, precedence and associativity as
// exprparse.y declares them, the trees operators become, argument counts
// checked while parsing, and syntax errors with pgbench's wording and the
// column pgbench points at. The same errors are checked against the real
// pgbench in pgbench-expression-pgbench.test.js.
import t from 'tap'
import { ScriptSyntaxError } from '../../lib/pgbench/errors.js'
import { MAX_EXPRESSION_DEPTH, parseExpression } from '../../lib/pgbench/expression/parse.js'

/**
 * A tree in one line: constants as JavaScript prints them, :variables, and
 * calls as name(args).
 * @param {import('../../lib/pgbench/expression/parse.js').ExprNode} node
 * @returns {string}
 */
function show(node) {
  if (node.type === 'constant') return node.value === null ? 'null' : String(node.value)
  if (node.type === 'variable') return ':' + node.name
  return `${node.name}(${node.args.map(show).join(',')})`
}

/** @param {string} text */
const tree = text => show(parseExpression(text))

t.test('constants, variables and function calls', async t => {
  t.equal(tree('5432'), '5432')
  t.equal(tree('3.14159'), '3.14159')
  t.equal(tree('.5'), '0.5')
  t.equal(tree('5.'), '5')
  t.same(parseExpression('5.'), { type: 'constant', value: 5 }, 'a double, not an int')
  t.same(parseExpression('5'), { type: 'constant', value: 5n })
  t.equal(tree('1e3'), '1000')
  t.equal(tree('1.5E-3'), '0.0015')
  t.equal(tree('007'), '7')
  t.equal(tree('9223372036854775807'), '9223372036854775807')
  t.equal(tree('-9223372036854775808'), '-9223372036854775808', 'INT64_MIN is a constant after a unary minus')
  t.equal(tree('- 9223372036854775808'), '-9223372036854775808')
  t.equal(tree('9223372036854775808.0'), '9223372036854776000', 'a double when it has a fraction')
  t.equal(tree('TRUE'), 'true')
  t.equal(tree('false'), 'false')
  t.equal(tree('NuLl'), 'null')
  t.equal(tree(':aid'), ':aid')
  t.equal(tree(':1x'), ':1x', 'the scanner takes any name characters after the colon')
  t.equal(tree(':é_1'), ':é_1')
  t.equal(tree('ABS(-1)'), 'abs(-(0,1))', 'function names are case-insensitive')
  t.equal(tree('pi()'), 'pi()')
  t.equal(tree('power(2, 3)'), 'pow(2,3)')
  t.equal(tree('mod(5, 3)'), 'mod(5,3)')
  t.equal(tree('hash(1)'), 'hash_murmur2(1,:default_seed)', 'the seed defaults to :default_seed')
  t.equal(tree('hash(1, 2)'), 'hash_murmur2(1,2)')
  t.equal(tree('hash_fnv1a(1)'), 'hash_fnv1a(1,:default_seed)')
  t.equal(tree('permute(1, 10)'), 'permute(1,10,:default_seed)')
  t.equal(tree('permute(1, 10, 5)'), 'permute(1,10,5)')
  t.equal(tree('least(1, 2, 3)'), 'least(1,2,3)')
  t.equal(tree('least(, 1, 2)'), 'least(1,2)', 'the grammar allows an empty first element')
  t.equal(tree('random_zipfian(1, 10, 1.5)'), 'random_zipfian(1,10,1.5)')
})

t.test("operators become pgbench's internal functions", async t => {
  t.equal(tree('1 + 2'), '+(1,2)')
  t.equal(tree('1 % 2'), 'mod(1,2)')
  t.equal(tree('-x'.replace('x', ':x')), '-(0,:x)', 'unary minus is 0 - x')
  t.equal(tree('+:x'), ':x')
  t.equal(tree('~:x'), '#(-1,:x)', 'complement is xor with all ones')
  t.equal(tree('1 > 2'), '<(2,1)', '> swaps its operands')
  t.equal(tree('1 >= 2'), '<=(2,1)')
  t.equal(tree('1 != 2'), '<>(1,2)')
  t.equal(tree('1 <> 2'), '<>(1,2)')
  t.equal(tree('true AND false'), '!and(true,false)')
  t.equal(tree('true or false'), '!or(true,false)')
  t.equal(tree('NOT true'), '!not(true)')
  t.equal(tree(':x IS NULL'), '!is(:x,null)')
  t.equal(tree(':x is not null'), '!not(!is(:x,null))')
  t.equal(tree(':x isnull'), '!is(:x,null)')
  t.equal(tree(':x NOTNULL'), '!not(!is(:x,null))')
  t.equal(tree(':x is true'), '!is(:x,true)')
  t.equal(tree(':x is not false'), '!not(!is(:x,false))')
  t.equal(tree('case when 1 then 2 end'), '!case_end(1,2,null)')
  t.equal(tree('CASE WHEN 1 THEN 2 WHEN 3 THEN 4 ELSE 5 END'), '!case_end(1,2,3,4,5)')
})

t.test('precedence and associativity as exprparse.y declares them', async t => {
  const cases = [
    ['1 + 2 * 3', '+(1,*(2,3))'],
    ['1 * 2 + 3', '+(*(1,2),3)'],
    ['1 - 2 - 3', '-(-(1,2),3)'],
    ['8 / 4 / 2', '/(/(8,4),2)'],
    ['8 % 5 * 2', '*(mod(8,5),2)'],
    ['(1 + 2) * 3', '*(+(1,2),3)'],
    ['-2 * 3', '*(-(0,2),3)'],
    ['- - 2', '-(0,-(0,2))'],
    ['2 * -3', '*(2,-(0,3))'],
    ['1 + 2 & 3', '&(+(1,2),3)'],
    ['1 & 2 | 3', '|(&(1,2),3)'],
    ['1 | 2 & 3', '&(|(1,2),3)'],
    ['1 << 2 + 3', '<<(1,+(2,3))'],
    ['~1 + 2', '#(-1,+(1,2))'],
    ['~1 | 2', '|(#(-1,1),2)'],
    ['~1 < 2', '<(#(-1,1),2)'],
    ['1 | 2 < 3', '<(|(1,2),3)'],
    ['1 < 2 = true', undefined],
    ['not 1 = 2', '!not(=(1,2))'],
    ['not true and false', '!and(!not(true),false)'],
    ['true or false and false', '!or(true,!and(false,false))'],
    ['true and false or true', '!or(!and(true,false),true)'],
    ['a or b'.replace(/[ab]/g, v => ':' + v), '!or(:a,:b)'],
    ['not not true', '!not(!not(true))'],
    ['1 + not true', '+(1,!not(true))'],
    ['1 + not 2 + 3', '+(1,!not(+(2,3)))'],
    ['1 < 2 is true', '!is(<(1,2),true)'],
    ['1 < 2 is null < 3', '<(!is(<(1,2),null),3)'],
    [':x isnull isnull', '!is(!is(:x,null),null)'],
    [':x is null is not null', '!not(!is(!is(:x,null),null))'],
    ['not :x isnull', '!not(!is(:x,null))'],
    ['-:x isnull', '!is(-(0,:x),null)'],
    ['1 + 2 isnull', '!is(+(1,2),null)'],
    ['- 9223372036854775808 * 2', '*(-9223372036854775808,2)'],
    ['case when 1 < 2 then 3 + 4 else 5 end * 2', '*(!case_end(<(1,2),+(3,4),5),2)']
  ]
  for (const [text, expected] of cases) {
    if (expected === undefined) t.throws(() => parseExpression(text), ScriptSyntaxError, text)
    else t.equal(tree(text), expected, text)
  }
})

t.test('comparisons do not chain', async t => {
  for (const text of ['1 < 2 < 3', '1 = 2 = 3', '1 <= 2 >= 3', '1 <> 2 != 3', '1 isnull < 2 < 3']) {
    t.throws(() => parseExpression(text), { name: 'ScriptSyntaxError', message: 'syntax error' }, text)
  }
})

t.test("keywords and names follow the scanner's longest match", async t => {
  t.equal(tree('1 isnull'), '!is(1,null)')
  t.throws(() => parseExpression('isnullx(1)'), {
    name: 'ScriptSyntaxError',
    message: 'unexpected function name (isnullx)'
  })
  t.throws(() => parseExpression('andy'), { name: 'ScriptSyntaxError', message: 'unexpected function name (andy)' })
  t.same(syntaxError('1e'), { message: 'syntax error', column: 1 }, 'the int 1 then the name e, which cannot follow it')
  t.throws(() => parseExpression('true(1)'), { name: 'ScriptSyntaxError', message: 'syntax error' })
  t.equal(tree('1 \\\n+ 2'), '+(1,2)', 'backslash-newline continues the line')
  t.equal(tree('1 \\\r\n+ 2'), '+(1,2)')
  t.equal(tree('\t1\r+\f2\v'), '+(1,2)', 'C spaces other than newline are spaces')
  t.equal(tree('1 + 2\n'), '+(1,2)', 'a newline ends the expression')
  t.equal(tree('1 + 2\n   '), '+(1,2)')
})

/**
 * @param {string} text
 * @returns {{ message: string, column: number | undefined }}
 */
function syntaxError(text) {
  try {
    parseExpression(text)
  } catch (error) {
    if (!(error instanceof ScriptSyntaxError)) throw error
    return { message: error.message, column: error.column }
  }
  throw new Error(`parsed: ${text}`)
}

t.test("syntax errors: pgbench's message and the column it points at", async t => {
  /** @type {Array<[string, string, number]>} */
  const cases = [
    ['', 'syntax error', 0],
    ['1 +', 'syntax error', 3],
    ['(1', 'syntax error', 2],
    ['1 2', 'syntax error', 2],
    ['1 < 2 < 3', 'syntax error', 6],
    ['9223372036854775808', 'syntax error', 18],
    ['x is 1', 'unexpected function name (x)', 0],
    ['not a and b', 'unexpected function name (a)', 4],
    ['foo(1)', 'unexpected function name (foo)', 2],
    ['abs(1, 2)', 'unexpected number of arguments (abs)', 8],
    ['power(1)', 'unexpected number of arguments (power)', 7],
    ['pi(1)', 'unexpected number of arguments (pi)', 4],
    ['hash()', 'unexpected number of arguments (hash)', 5],
    ['hash(1, 2, 3)', 'unexpected number of arguments (hash)', 12],
    ['permute(1)', 'unexpected number of arguments (permute)', 9],
    ['permute(1, 2, 3, 4)', 'unexpected number of arguments (permute)', 18],
    ['least()', 'at least one argument expected (least)', 6],
    ['GREATEST()', 'at least one argument expected (greatest)', 9],
    ['1 @ 2', 'unexpected character (@)', 2],
    [':', 'unexpected character (:)', 0],
    ['.', 'unexpected character (.)', 0],
    ['1 ! 2', 'unexpected character (!)', 2],
    ['1 \\ 2', 'unexpected character (\\)', 2],
    ['99999999999999999999', 'bigint constant overflow (99999999999999999999)', 19],
    ['1e400', 'double constant overflow (1e400)', 4],
    ['5e-324', 'double constant overflow (5e-324)', 5],
    ['case when 1 end', 'syntax error', 14],
    ['least(,)', 'syntax error', 7],
    ['least(1,)', 'syntax error', 8],
    ['1\n+ 2', 'syntax error', 2],
    // pgbench scans the rest of the line after an error and reports the
    // last lexical error it finds there instead.
    ['foo @ 99999999999999999999', 'bigint constant overflow (99999999999999999999)', 25],
    ['1 + + @', 'unexpected character (@)', 6],
    ['abs(1, 2) 1e999 $', 'unexpected character ($)', 16]
  ]
  for (const [text, message, column] of cases) {
    t.same(syntaxError(text), { message, column }, JSON.stringify(text))
  }
})

t.test('a non-ASCII character is a name character, as any high byte is for pgbench', async t => {
  t.same(syntaxError('é(1)'), { message: 'unexpected function name (é)', column: 0 })
  t.same(syntaxError('1 + 😀'), { message: 'unexpected function name (😀)', column: 5 })
  t.same(syntaxError('1 \u0000 2'), { message: 'unexpected character (\u0000)', column: 2 })
})

t.test('depth is bounded, so that nothing overflows the stack', async t => {
  const deep = '('.repeat(MAX_EXPRESSION_DEPTH - 1) + '1' + ')'.repeat(MAX_EXPRESSION_DEPTH - 1)
  t.equal(tree(deep), '1')
  const tooDeep = '('.repeat(MAX_EXPRESSION_DEPTH + 1) + '1' + ')'.repeat(MAX_EXPRESSION_DEPTH + 1)
  t.match(syntaxError(tooDeep).message, /too deeply nested/)
  t.match(syntaxError('-'.repeat(50000) + '1').message, /too deeply nested/)
  t.match(
    syntaxError(Array(5000).fill('1').join(' + ')).message,
    /too deeply nested/,
    'a long left-associative chain nests the tree'
  )
  t.equal(tree(Array(200).fill('1').join(' + ')).length > 0, true)
})
