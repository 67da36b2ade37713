// The order of -f, -b, -S and -N as given on the command line: the order of
// the scripts' request types, as pgbench keeps it.
import t from 'tap'
import { scriptOrder } from '../../lib/cli/script-order.js'

t.test('scripts keep the order they were given in, whatever the spelling', async t => {
  const argv = [
    'run',
    'postgres://u@h/db',
    '-N',
    '-f',
    'a.sql@2',
    '--builtin=tpcb',
    '-bselect-only@3',
    '--file',
    'b.sql',
    '-S',
    '-c',
    '8'
  ]
  t.same(
    scriptOrder(argv, {
      files: ['a.sql@2', 'b.sql'],
      builtins: ['tpcb', 'select-only@3', 'select-only', 'simple-update']
    }),
    [
      { builtin: 'simple-update' },
      { file: 'a.sql@2' },
      { builtin: 'tpcb' },
      { builtin: 'select-only@3' },
      { file: 'b.sql' },
      { builtin: 'select-only' }
    ]
  )
})

t.test('when the scan does not account for what was parsed, files come first', async t => {
  // -Sf is a bundle of short flags the scan does not read: it cannot be sure of the order
  t.same(
    scriptOrder(['run', '-b', 'select-only', '-Sf', 'x.sql'], {
      files: ['x.sql'],
      builtins: ['select-only', 'select-only']
    }),
    [{ file: 'x.sql' }, { builtin: 'select-only' }, { builtin: 'select-only' }]
  )
  t.same(scriptOrder([], { files: [], builtins: [] }), [])
})

t.test('arguments after -- are not flags', async t => {
  t.same(scriptOrder(['run', '-b', 'tpcb', '--', '-f', 'x.sql'], { files: [], builtins: ['tpcb'] }), [
    { builtin: 'tpcb' }
  ])
})
