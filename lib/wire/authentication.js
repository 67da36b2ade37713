import { ScramClient, md5Password } from './scram.js'
import { ConnectionLostError } from './errors.js'

// The client's side of the server's Authentication* requests: cleartext,
// MD5 and SCRAM-SHA-256. Each answer is a PasswordMessage ('p') written into
// the connection's writer; the caller flushes it.
export class Authenticator {
  /** @param {import('./connection-config.js').WireConfig} config */
  constructor(config) {
    this.config = config
    /** @type {ScramClient | null} */
    this.scram = null
  }

  password() {
    if (this.config.password === null) {
      throw new ConnectionLostError(`the server asks for a password for user "${this.config.user}" and none was given`)
    }
    return this.config.password
  }

  /**
   * @param {number} code  the request's subtype
   * @param {Buffer} buf
   * @param {number} start  first byte after the subtype
   * @param {number} end
   * @param {import('./writer.js').MessageWriter} w
   * @returns {Promise<boolean>} whether an answer was written
   */
  async respond(code, buf, start, end, w) {
    switch (code) {
      case 0: // AuthenticationOk
        return false
      case 3: {
        // cleartext
        const at = w.begin(0x70)
        w.cstring(this.password())
        w.end(at)
        return true
      }
      case 5: {
        // MD5
        const at = w.begin(0x70)
        w.cstring(md5Password(this.config.user, this.password(), buf.subarray(start, start + 4)))
        w.end(at)
        return true
      }
      case 10: {
        // SASL
        const mechanisms = buf.toString('utf8', start, end).split('\0')
        if (!mechanisms.includes('SCRAM-SHA-256')) {
          throw new ConnectionLostError(`unsupported SASL mechanisms: ${mechanisms.filter(Boolean).join(', ')}`)
        }
        this.scram = new ScramClient(this.password())
        const initial = this.scram.initialResponse()
        const at = w.begin(0x70)
        w.cstring('SCRAM-SHA-256')
        w.int32(initial.length)
        w.bytes(initial)
        w.end(at)
        return true
      }
      case 11: {
        // SASLContinue
        const final = await this.requireScram().respond(buf.toString('utf8', start, end))
        const at = w.begin(0x70)
        w.bytes(final)
        w.end(at)
        return true
      }
      case 12: // SASLFinal
        this.requireScram().verify(buf.toString('utf8', start, end))
        return false
      default:
        throw new ConnectionLostError(`unsupported authentication method (code ${code})`)
    }
  }

  requireScram() {
    if (this.scram === null) {
      throw new ConnectionLostError('the server continued a SASL exchange that was never started')
    }
    return this.scram
  }
}
