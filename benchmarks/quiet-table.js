// On the bench's own server, the manta and threads parts run with
// autovacuum off on their table. The launcher starts a vacuum of it about
// once a minute, and each took 0.3 to 3.5 s of a core: it fell inside some
// 15 s runs and not others, on either side, on two cores shared by the
// client and the server. With it off, both sides run against the same
// unvacuumed table; the dead rows it gathers over the rounds are a drift
// that the alternation cancels, as it does the table's growth. A server
// given by URL is left as it is.

/**
 * @param {{ query: (sql: string) => Promise<unknown> }} client
 * @param {string} table  a name of ours, not user input
 */
export async function holdAutovacuum(client, table) {
  await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = off)`)
}

/**
 * For the printed result: how the part's table was vacuumed.
 * @param {boolean | undefined} held
 */
export function autovacuumNote(held) {
  return held ? ', autovacuum off on test_table' : ''
}
