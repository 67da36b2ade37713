// The client's answers to the server's authentication requests, checked
// against known answers: the PasswordMessage of cleartext and MD5 (the hash
// computed apart, with Python's hashlib), and SCRAM-SHA-256 against the
// exchange of RFC 7677, section 3. The machine's PostgreSQL trusts local
// connections, so the recorded exchanges (wire-protocol.test.js) hold no
// authentication but AuthenticationOk. No server.
import t from 'tap'
import { Authenticator } from '../../lib/wire/authentication.js'
import { ScramClient, md5Password } from '../../lib/wire/scram.js'
import { MessageWriter } from '../../lib/wire/writer.js'
import { parseConnectionString } from '../../lib/wire/connection-config.js'

/**
 * An Authentication request's body after its code, as the server sends it.
 * @param {string | Buffer} data
 */
const body = data => Buffer.from(data)

/**
 * A PasswordMessage ('p') holding payload.
 * @param {Buffer} payload
 */
function passwordMessage(payload) {
  const header = Buffer.alloc(5)
  header[0] = 0x70
  header.writeInt32BE(4 + payload.length, 1)
  return Buffer.concat([header, payload])
}

const config = parseConnectionString('postgres://postgres:secret@127.0.0.1:5432/test', 'pgloadgen')

t.test('cleartext and MD5: the PasswordMessage', async t => {
  const w = new MessageWriter(16)
  const auth = new Authenticator(config)
  t.equal(await auth.respond(0, body(''), 0, 0, w), false, 'AuthenticationOk: nothing to answer')
  t.equal(w.length, 0)
  t.equal(await auth.respond(3, body(''), 0, 0, w), true)
  t.same(w.take(), passwordMessage(Buffer.from('secret\0')), 'cleartext: the password')
  const salt = Buffer.from([1, 2, 3, 4])
  const hashed = 'md5bb41a296aab6baccb36ff243a562abff'
  t.equal(md5Password('postgres', 'secret', salt), hashed, 'md5(md5(password + user) + salt)')
  t.equal(await auth.respond(5, salt, 0, 4, w), true)
  t.same(w.take(), passwordMessage(Buffer.from(`${hashed}\0`)), 'MD5: the salted hash')
  // (not from a URL: PGPASSWORD would give one)
  const noPassword = new Authenticator({ ...config, user: 'alice', password: null })
  const none = 'the server asks for a password for user "alice" and none was given'
  await t.rejects(noPassword.respond(3, body(''), 0, 0, w), { message: none })
  const gssapi = { message: 'unsupported authentication method (code 7)' }
  await t.rejects(auth.respond(7, body(''), 0, 0, w), gssapi, 'GSSAPI')
})

t.test("SCRAM-SHA-256: RFC 7677's exchange", async t => {
  const scram = new ScramClient('pencil')
  // the RFC's nonce and user name, where PostgreSQL's exchange has a random
  // nonce and no user (it comes from the startup message)
  scram.nonce = 'rOprNGfwEbeRWgbNEkqO'
  scram.clientFirstBare = 'n=user,r=rOprNGfwEbeRWgbNEkqO'
  t.equal(scram.initialResponse().toString(), 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO')
  const serverFirst = 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096'
  const final = await scram.respond(serverFirst)
  t.equal(
    final.toString(),
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
    'the client-final message and its proof'
  )
  const serverFinal = 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='
  t.doesNotThrow(() => scram.verify(serverFinal), "the server's signature verified")
  const mismatch = { message: 'SCRAM: the server signature does not match' }
  t.throws(() => scram.verify('v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='), mismatch)
  await t.rejects(new ScramClient('pencil').respond(serverFirst), { message: /nonce does not extend the client nonce/ })
})

t.test('SCRAM through the Authenticator: the SASL messages it writes', async t => {
  const w = new MessageWriter()
  const auth = new Authenticator(config)
  t.equal(await auth.respond(10, body('SCRAM-SHA-256\0\0'), 0, 15, w), true)
  const initial = w.take()
  t.equal(initial[0], 0x70, 'a PasswordMessage (SASLInitialResponse)')
  t.equal(initial.readInt32BE(1), initial.length - 1, 'its length')
  t.equal(initial.toString('latin1', 5, 19), 'SCRAM-SHA-256\0', 'the mechanism')
  const response = initial.subarray(23)
  t.equal(initial.readInt32BE(19), response.length, "the response's length")
  t.match(
    response.toString(),
    /^n,,n=\*,r=[A-Za-z0-9+/]{24}$/,
    'no channel binding, the user from the startup message, a random nonce'
  )
  const nonce = response.toString().slice('n,,n=*,r='.length)
  const serverFirst = `r=${nonce}server,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`
  t.equal(await auth.respond(11, body(serverFirst), 0, serverFirst.length, w), true)
  const clientFinal = new RegExp(`^c=biws,r=${nonce.replace(/[+/]/g, '\\$&')}server,p=[A-Za-z0-9+/]{43}=$`)
  t.match(w.take().subarray(5).toString(), clientFinal, 'SASLResponse')
  await t.rejects(auth.respond(12, body('v=AAAA'), 0, 6, w), { message: 'SCRAM: the server signature does not match' })
  const plus = body('SCRAM-SHA-256-PLUS\0\0')
  const unsupported = { message: 'unsupported SASL mechanisms: SCRAM-SHA-256-PLUS' }
  await t.rejects(auth.respond(10, plus, 0, plus.length, w), unsupported)
  await t.rejects(new Authenticator(config).respond(11, body(serverFirst), 0, serverFirst.length, w), {
    message: 'the server continued a SASL exchange that was never started'
  })
})
