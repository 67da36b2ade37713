import { createHash, createHmac, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

const derive = promisify(pbkdf2)

/** @param {Buffer} key @param {string} text */
const hmac = (key, text) => createHmac('sha256', key).update(text).digest()

// SCRAM-SHA-256 (RFC 7677) as PostgreSQL speaks it: no channel binding, the
// user name comes from the startup message.
export class ScramClient {
  /** @param {string} password */
  constructor(password) {
    this.password = password
    this.nonce = randomBytes(18).toString('base64')
    this.clientFirstBare = `n=*,r=${this.nonce}`
    /** @type {Buffer | null} */
    this.serverSignature = null
  }

  initialResponse() {
    return Buffer.from(`n,,${this.clientFirstBare}`)
  }

  /**
   * @param {string} serverFirst
   * @returns {Promise<Buffer>} the client-final message
   */
  async respond(serverFirst) {
    const attrs = Object.fromEntries(serverFirst.split(',').map(kv => [kv[0], kv.slice(2)]))
    // a connection that fails: the generator counts it and connects again
    if (!attrs.r?.startsWith(this.nonce)) throw new Error('SCRAM: server nonce does not extend the client nonce')
    const iterations = Number(attrs.i)
    if (!attrs.s || !(iterations > 0)) throw new Error('SCRAM: malformed server-first message')
    const salted = await derive(this.password, Buffer.from(attrs.s, 'base64'), iterations, 32, 'sha256')
    const clientKey = hmac(salted, 'Client Key')
    const storedKey = createHash('sha256').update(clientKey).digest()
    const withoutProof = `c=biws,r=${attrs.r}`
    const authMessage = `${this.clientFirstBare},${serverFirst},${withoutProof}`
    const signature = hmac(storedKey, authMessage)
    const proof = Buffer.alloc(clientKey.length)
    for (let i = 0; i < proof.length; i++) proof[i] = clientKey[i] ^ signature[i]
    this.serverSignature = hmac(hmac(salted, 'Server Key'), authMessage)
    return Buffer.from(`${withoutProof},p=${proof.toString('base64')}`)
  }

  /** @param {string} serverFinal */
  verify(serverFinal) {
    const match = /(?:^|,)v=([^,]+)/.exec(serverFinal)
    const given = match ? Buffer.from(match[1], 'base64') : Buffer.alloc(0)
    if (
      !this.serverSignature ||
      given.length !== this.serverSignature.length ||
      !timingSafeEqual(given, this.serverSignature)
    ) {
      throw new Error('SCRAM: the server signature does not match')
    }
  }
}

/**
 * @param {string} user
 * @param {string} password
 * @param {Buffer} salt
 */
export function md5Password(user, password, salt) {
  const md5 = (/** @type {string | Buffer} */ s) => createHash('md5').update(s).digest('hex')
  return 'md5' + md5(Buffer.concat([Buffer.from(md5(password + user)), salt]))
}
