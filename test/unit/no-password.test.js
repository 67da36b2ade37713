// A server that asks for a SCRAM password the URL does not give (the
// embedded servers do): the connection fails at once with one clear line
// (node-postgres says it in its own words, without a SQLSTATE), as a
// failed authentication, never retried until the connect timeout. The
// server listens on a Unix socket (the unit loop has no network) and
// answers the startup message with AuthenticationSASL and the client's
// first SCRAM message with AuthenticationSASLContinue, from the message
// builders. (An MD5 or
// cleartext request gets a password message all the same, which a real
// server refuses with 28P01, already coded.)
import t from 'tap'
import net from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { connectWithin } from '../../lib/pg/connection.js'
import { serverErrorCode } from '../../lib/pg/server-errors.js'
import { authenticationSASL, authenticationSASLContinue } from '../helpers/backend-messages.js'

/**
 * A listener on a Unix socket, as a server's socket directory holds it,
 * that answers each message of a client with the next of replies.
 * @param {import('tap').Test} t
 * @param {Buffer[]} replies
 */
async function askingServer(t, replies) {
  let startups = 0
  const server = net.createServer(socket => {
    startups++
    let next = 0
    socket.on('data', () => {
      if (next < replies.length) socket.write(replies[next++])
    })
    socket.on('error', () => {})
  })
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-no-password-'))
  await new Promise(resolve => server.listen(path.join(dir, '.s.PGSQL.5432'), () => resolve(undefined)))
  t.teardown(async () => {
    await new Promise(resolve => server.close(() => resolve(undefined)))
    await rm(dir, { recursive: true, force: true })
  })
  return { url: `postgres://someone@/db?host=${dir}&port=5432`, startups: () => startups }
}

t.test('SCRAM-SHA-256, no password: one clear error, at once, not retried', async t => {
  const given = process.env.PGPASSWORD
  delete process.env.PGPASSWORD
  t.teardown(() => {
    if (given !== undefined) process.env.PGPASSWORD = given
  })
  const server = await askingServer(t, [authenticationSASL(), authenticationSASLContinue('r=abc,s=c2FsdA==,i=4096')])
  const started = Date.now()
  const err = await connectWithin({ connectionString: server.url }, 10_000).then(
    () => null,
    error => error
  )
  t.match(err?.message, 'the server asks for a password and none was given (put it in the URL, or in PGPASSWORD)')
  t.equal(serverErrorCode(err), 'PGLG_SERVER_UNAVAILABLE', 'coded as a server that cannot be used')
  t.match(String(err?.cause?.message), /password must be a string/, "the driver's words kept as its cause")
  t.equal(server.startups(), 1, 'one attempt: a password will not come by waiting')
  t.ok(Date.now() - started < 5000, `failed in ${Date.now() - started} ms, not at the 10 s timeout`)
})
