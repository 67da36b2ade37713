import { redactUrl } from '../config/pg-url.js'

// Nothing secret reaches a report: run.json's args may hold a PostgreSQL URL
// with a password, a control token, or a password of their own.

const SECRET_KEY = /pass(word)?|secret|token|credential|api[-_]?key/i
// scheme://user:password@ — the password is anything up to the last @ before
// the host part ends.
const URL_WITH_SECRET = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s/@]*@/gi
const SECRET_QUERY = /([?&](?:password|sslpassword|sslkey|sslcert|sslrootcert)=)[^&\s]*/gi

/**
 * A deep copy of value with secrets replaced: values of secret-looking keys,
 * passwords in URLs, and secret query parameters.
 * @param {unknown} value
 * @returns {any}
 */
export function redact(value) {
  if (typeof value === 'string') return redactString(value)
  if (Array.isArray(value)) return value.map(redact)
  if (value && typeof value === 'object') {
    /** @type {Record<string, unknown>} */
    const out = {}
    for (const [key, item] of Object.entries(value)) {
      out[key] =
        SECRET_KEY.test(key) && item !== null && item !== undefined && item !== false && item !== ''
          ? '[redacted]'
          : redact(item)
    }
    return out
  }
  return value
}

/** @param {string} text */
export function redactString(text) {
  if (!text.includes('://') && !/[?&](password|sslpassword|sslkey|sslcert|sslrootcert)=/i.test(text)) return text
  const trimmed = text.trim()
  if (/^postgres(ql)?:\/\/\S*$/i.test(trimmed)) {
    try {
      return redactUrl(new URL(trimmed))
    } catch {
      // not a URL after all: the patterns below still apply
    }
  }
  return text.replace(URL_WITH_SECRET, '$1@').replace(SECRET_QUERY, '$1[redacted]')
}
