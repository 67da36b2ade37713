// The load's server found from the generator's own connections
// (lib/recorder/host-server.js) when it runs in a network namespace of its
// own on this machine and listens on the same port as the tests'
// PostgreSQL 15 on 127.0.0.1: the server connected to is the one found,
// not the one on loopback; and with no connection, none is found.
import t from 'tap'
import { readdirSync } from 'node:fs'
import pg from 'pg'
import { NetnsServer } from '../helpers/netns.js'
import { findLocalServer } from '../../lib/recorder/host-server.js'

const allPids = () =>
  readdirSync('/proc')
    .filter(name => /^\d+$/.test(name))
    .map(Number)

t.test('a server in a network namespace, on the port of one on loopback', async t => {
  const server = await NetnsServer.create(t)
  const loopback = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' })
  await loopback.connect()
  t.teardown(() => loopback.end())
  const clients = Array.from({ length: 3 }, () => new pg.Client({ connectionString: server.urlOf('postgres') }))
  for (const client of clients) await client.connect()
  t.teardown(() => Promise.all(clients.map(client => client.end())))
  t.equal(
    findLocalServer(allPids()),
    server.postmaster?.pid,
    'the postmaster in the namespace, where most connections go, not the one on 127.0.0.1:5432'
  )
})

t.test('no connection, no server', async t => {
  t.equal(findLocalServer(allPids()), null)
})
