// The functions a pgbench expression may call by name, with the number of
// arguments pgbench's parser demands, and the binary operators with their
// precedence and associativity as exprparse.y declares them. Operators
// become calls of internal functions named as pgbench names them ('+',
// 'mod', '!and', ...), so the tree that parse.js builds is the one pgbench
// evaluates.

/**
 * How many arguments a function takes: a count, 'variadic' (at least one),
 * 'hash' (a value and an optional seed) or 'permute' (a value, a size and
 * an optional seed). A missing seed is the variable default_seed.
 * @typedef {number | 'variadic' | 'hash' | 'permute'} Arity
 */

/**
 * By the name a script calls it (ASCII case-insensitive, the name pgbench's
 * messages show): the name of the function evaluated, and its arity.
 * @type {ReadonlyMap<string, { name: string, arity: Arity }>}
 */
export const FUNCTIONS = new Map([
  ['abs', { name: 'abs', arity: 1 }],
  ['debug', { name: 'debug', arity: 1 }],
  ['double', { name: 'double', arity: 1 }],
  ['exp', { name: 'exp', arity: 1 }],
  ['greatest', { name: 'greatest', arity: 'variadic' }],
  ['hash', { name: 'hash_murmur2', arity: 'hash' }],
  ['hash_fnv1a', { name: 'hash_fnv1a', arity: 'hash' }],
  ['hash_murmur2', { name: 'hash_murmur2', arity: 'hash' }],
  ['int', { name: 'int', arity: 1 }],
  ['least', { name: 'least', arity: 'variadic' }],
  ['ln', { name: 'ln', arity: 1 }],
  ['mod', { name: 'mod', arity: 2 }],
  ['permute', { name: 'permute', arity: 'permute' }],
  ['pi', { name: 'pi', arity: 0 }],
  ['pow', { name: 'pow', arity: 2 }],
  ['power', { name: 'pow', arity: 2 }],
  ['random', { name: 'random', arity: 2 }],
  ['random_exponential', { name: 'random_exponential', arity: 3 }],
  ['random_gaussian', { name: 'random_gaussian', arity: 3 }],
  ['random_zipfian', { name: 'random_zipfian', arity: 3 }],
  ['sqrt', { name: 'sqrt', arity: 1 }]
])

/** Functions whose result depends on more than their arguments. */
export const IMPURE_FUNCTIONS = new Set(['debug', 'random', 'random_exponential', 'random_gaussian', 'random_zipfian'])

// yacc precedence levels of exprparse.y, lowest first.
export const OR = 1
export const AND = 2
export const NOT = 3
export const IS = 4
export const COMPARE = 5
export const BITWISE = 6
export const ADD = 7
export const MULTIPLY = 8
export const UNARY = 9
/** The level of no pending operator. */
export const TOP = 0

/** @type {ReadonlyMap<number, 'left' | 'right' | 'nonassoc'>} */
export const ASSOCIATIVITY = new Map([
  [OR, 'left'],
  [AND, 'left'],
  [NOT, 'right'],
  [IS, 'nonassoc'],
  [COMPARE, 'nonassoc'],
  [BITWISE, 'left'],
  [ADD, 'left'],
  [MULTIPLY, 'left'],
  [UNARY, 'right']
])

/** Binary operators: precedence, the function evaluated, and whether its operands swap. */
export const BINARY = new Map([
  ['or', { level: OR, name: '!or', swap: false }],
  ['and', { level: AND, name: '!and', swap: false }],
  ['<', { level: COMPARE, name: '<', swap: false }],
  ['<=', { level: COMPARE, name: '<=', swap: false }],
  ['>', { level: COMPARE, name: '<', swap: true }],
  ['>=', { level: COMPARE, name: '<=', swap: true }],
  ['=', { level: COMPARE, name: '=', swap: false }],
  ['<>', { level: COMPARE, name: '<>', swap: false }],
  ['|', { level: BITWISE, name: '|', swap: false }],
  ['#', { level: BITWISE, name: '#', swap: false }],
  ['&', { level: BITWISE, name: '&', swap: false }],
  ['<<', { level: BITWISE, name: '<<', swap: false }],
  ['>>', { level: BITWISE, name: '>>', swap: false }],
  ['+', { level: ADD, name: '+', swap: false }],
  ['-', { level: ADD, name: '-', swap: false }],
  ['*', { level: MULTIPLY, name: '*', swap: false }],
  ['/', { level: MULTIPLY, name: '/', swap: false }],
  ['%', { level: MULTIPLY, name: 'mod', swap: false }]
])
