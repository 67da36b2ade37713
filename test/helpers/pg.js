// Real databases for the tests: a dedicated database per test file on the
// machine's PostgreSQL 15, and queries the tests check the CLI's work with.
import pg from 'pg'

// The machine's PostgreSQL 15 (trust authentication), its maintenance database.
export const PG15_ADMIN_URL = process.env.PGLOADGEN_TEST_PG15_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * @param {string} url
 * @param {string} database
 * @param {{ password?: string }} [options]
 */
export function urlFor(url, database, { password } = {}) {
  const copy = new URL(url)
  copy.pathname = `/${encodeURIComponent(database)}`
  if (password !== undefined) copy.password = encodeURIComponent(password)
  return copy.href
}

/**
 * Runs fn with a client connected to url, and closes it.
 * @template T
 * @param {string} url
 * @param {(client: pg.Client) => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url, application_name: 'pgloadgen-tests' })
  client.on('error', () => {})
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * @param {string} url
 * @param {string} sql
 * @param {unknown[]} [params]
 */
export function query(url, sql, params = []) {
  return withClient(url, client => client.query(sql, params))
}

/**
 * Creates a fresh, empty database on the server of adminUrl, dropped in the
 * test's teardown. The name carries the process id so that two runs of the
 * suite on one machine do not collide.
 * @param {{ teardown: (fn: () => unknown) => void }} t
 * @param {string} name   short, [a-z0-9_]
 * @param {string} [adminUrl]  a URL to the server's maintenance database
 * @returns {Promise<{ name: string, url: string, adminUrl: string }>}
 */
export async function createTestDatabase(t, name, adminUrl = PG15_ADMIN_URL) {
  const database = `pgloadgen_test_${name}_${process.pid}`
  if (!/^[a-z0-9_]+$/.test(database)) throw new Error(`bad test database name ${database}`)
  try {
    await query(adminUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  } catch (err) {
    // The first contact with the server: say which one, and how it gets there.
    throw new Error(
      `the tests' PostgreSQL 15 at ${adminUrl} cannot be used (${err}): npm test starts one on 127.0.0.1:5432 ` +
        `(its set-up, test/setup/system.sh), or set PGLOADGEN_TEST_PG15_URL`,
      { cause: err }
    )
  }
  await query(adminUrl, `CREATE DATABASE ${database}`)
  t.teardown(() => query(adminUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`))
  return { name: database, url: urlFor(adminUrl, database), adminUrl }
}

/**
 * Tables in the public schema of the database.
 * @param {string} url
 * @returns {Promise<string[]>}
 */
export async function listTables(url) {
  const result = await query(
    url,
    "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND " +
      "c.relkind IN ('r', 'p', 'S', 'v') ORDER BY 1"
  )
  return result.rows.map(row => row.relname)
}

/**
 * Rows in a table; 0 when the table does not exist yet.
 * @param {string} url
 * @param {string} table
 */
export async function countRows(url, table) {
  return withClient(url, async client => {
    const exists = await client.query('SELECT to_regclass($1) IS NOT NULL AS exists', [table])
    if (!exists.rows[0].exists) return 0
    const result = await client.query(`SELECT count(*)::bigint AS n FROM ${table}`)
    return Number(result.rows[0].n)
  })
}

/**
 * The ids of a table's rows, as numbers, ascending.
 * @param {string} url
 * @param {string} table
 */
export async function rowIds(url, table) {
  const result = await query(url, `SELECT id FROM ${table} ORDER BY id`)
  return result.rows.map(row => Number(row.id))
}

/**
 * The process ids of the generator's connections to the database of url
 * (application_name pgloadgen), not those to other databases on the server.
 * @param {string} url
 * @returns {Promise<number[]>}
 */
export async function generatorPids(url) {
  const result = await query(
    url,
    "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgloadgen' AND datname = current_database() AND pid " +
      '<> pg_backend_pid() ORDER BY pid'
  )
  return result.rows.map(row => row.pid)
}

/**
 * How many connections the generator has to the database of url.
 * @param {string} url
 */
export async function generatorBackends(url) {
  return (await generatorPids(url)).length
}

/**
 * Terminates the generator's connections to the database of url, as an
 * operator would; returns the process ids of the backends terminated.
 * @param {string} url
 * @returns {Promise<number[]>}
 */
export async function terminateGenerator(url) {
  const result = await query(
    url,
    "SELECT pid, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = 'pgloadgen' " +
      'AND datname = current_database() AND pid <> pg_backend_pid()'
  )
  return result.rows.filter(row => row.terminated).map(row => row.pid)
}

/**
 * Sessions ever established to a database, read from another database so
 * that reading it does not add one.
 * @param {string} adminUrl
 * @param {string} database
 */
export async function sessionsOf(adminUrl, database) {
  return withClient(adminUrl, async client => {
    // A fresh snapshot of the statistics, not one cached earlier in the session.
    await client.query('SELECT pg_stat_clear_snapshot()')
    const result = await client.query(
      'SELECT sessions::bigint AS sessions, numbackends FROM pg_stat_database WHERE datname = $1',
      [database]
    )
    return { sessions: Number(result.rows[0].sessions), backends: Number(result.rows[0].numbackends) }
  })
}
