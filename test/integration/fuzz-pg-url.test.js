// Connection URLs, fuzzed: the positional URL, PGLOADGEN_PG_URL and
// DATABASE_URL go through one parser; each text parses (and then its printed
// form holds no password) or is refused with one line that does not
// echo the password either (exit 2).
import t from 'tap'
import fc from 'fast-check'
import { parsePgUrl } from '../../lib/config/pg-url.js'
import { chooseUrl } from '../../lib/cli/target.js'
import { fuzzTest, hostileText, cliRefuses, sample, safeLabel } from '../helpers/fuzz.js'
import { runCli, lines } from '../helpers/cli.js'

const PASSWORD = 'Sekr1tPw'
const valid = [
  `postgres://postgres:${PASSWORD}@127.0.0.1:5432/test`,
  'postgres://postgres@127.0.0.1:5432/test',
  `postgresql://user:${PASSWORD}@db.example.com/app?sslmode=require`,
  'postgres:///test?host=/var/run/postgresql',
  `postgres://u:${PASSWORD}@[::1]:6432/db?sslmode=prefer&application_name=x`,
  'postgres://h/db?sslmode=verify-full',
  `postgres://u:${PASSWORD}@h:5432/db?password=${PASSWORD}&sslmode=allow#frag`,
  'postgresql://%75ser@h:1/d?sslmode=disable&uselibpqcompat=true'
]
const pieces = [
  'postgres://',
  'postgresql://',
  'http://',
  'mysql://',
  ':',
  '@',
  '/',
  '?',
  '&',
  '#',
  '=',
  'sslmode=',
  'verify-ca',
  'require',
  'bogus',
  'sslrootcert=/nonexistent',
  'sslcert=',
  'sslkey=/etc/hostname',
  'host=',
  ':0',
  ':65535',
  ':65536',
  ':99999',
  ':-1',
  '[',
  ']',
  '::1',
  '%',
  '%zz',
  '%40',
  '\u0000',
  'localhost',
  '127.0.0.1',
  PASSWORD,
  `:${PASSWORD}@`
]

/**
 * Whether a printed URL carries a password or a secret parameter.
 * @param {string} display
 */
function hasSecret(display) {
  const url = new URL(display)
  return url.password !== '' || ['password', 'sslpassword', 'sslkey'].some(name => url.searchParams.has(name))
}

/** A password shown: an error that carries it whole. */
const leaks = (/** @type {string} */ text) => text.includes(PASSWORD)

const result = await fuzzTest(
  t,
  'connection URL (parsePgUrl)',
  hostileText(valid, { pieces }),
  text => parsePgUrl(text),
  {
    runs: 4000,
    valid: target =>
      typeof target.connectionString !== 'string' || typeof target.display !== 'string'
        ? 'no connection string or display'
        : hasSecret(target.display)
          ? `the display shows a secret: ${target.display}`
          : null,
    refused: (err, text) => {
      // A password that is not between "//user:" and an "@" is not recognisable
      // as one; only those are promised to stay out of messages.
      const recognisable =
        text.split(PASSWORD).length === 2 &&
        (/^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*:[^/?#]*Sekr1tPw[^/?#]*@/.test(text) ||
          /[?&]password=[^&#]*Sekr1tPw/.test(text))
      return recognisable && leaks(err.message) ? `the error shows the password: ${err.message}` : null
    }
  }
)

await fuzzTest(
  t,
  'URL from the argument or the environment (chooseUrl)',
  fc.tuple(fc.option(hostileText(valid, { pieces })), fc.option(hostileText(valid, { pieces }))),
  ([argument, env]) => {
    const saved = process.env.PGLOADGEN_PG_URL
    try {
      if (env === null) delete process.env.PGLOADGEN_PG_URL
      else process.env.PGLOADGEN_PG_URL = env
      return chooseUrl(argument ?? undefined)
    } finally {
      if (saved === undefined) delete process.env.PGLOADGEN_PG_URL
      else process.env.PGLOADGEN_PG_URL = saved
    }
  },
  { runs: 1000 }
)

t.test('the CLI refuses a sample of them: exit 2, one line, nothing created', async t => {
  const bad = sample(result.refusals, 8, text => !/^\s*-/.test(text) && text.trim() !== '')
  await Promise.all([
    ...bad
      .slice(0, 4)
      .map(text =>
        cliRefuses(
          t,
          s => ['run', text, '-p', '0', '-d', '1', '--data-dir', s.dataDir, '--events', s.events],
          'run URL'
        )
      ),
    ...bad.slice(4, 6).map(text => cliRefuses(t, s => ['stats', text, '-p', '0', '--data-dir', s.dataDir], 'stats URL'))
  ])
  // the environment's URL: through the same parser
  for (const text of bad.slice(6, 8)) {
    const r = await runCli(['run', '-p', '0', '-d', '1'], { env: { PGLOADGEN_PG_URL: text } })
    t.equal(r.code, 2, safeLabel(`PGLOADGEN_PG_URL=${JSON.stringify(text).slice(0, 80)}: exit 2`))
    t.equal(lines(r.stderr).length, 1, 'one line')
  }
})
