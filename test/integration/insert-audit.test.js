// The check at exit of acknowledged inserts, on a table made to hold every
// case: rows as written, a row deleted, a row whose id another row took,
// ids above where the sequence went back to, an id acknowledged twice.
import t from 'tap'
import pg from 'pg'
import { AckLedger, foldFingerprint } from '../../lib/generator/ack-ledger.js'
import { auditInserts } from '../../lib/generator/verify-inserts.js'
import { createTestDatabase } from '../helpers/pg.js'

const FINGERPRINT = "('x' || left(c1, 4))::bit(16)::int"

t.test('each acknowledged insert is present, vanished or missing, and the evidence decides which', async t => {
  const db = await createTestDatabase(t, 'insert_audit')
  const client = new pg.Client({ connectionString: db.url })
  await client.connect()
  t.teardown(() => client.end())
  await client.query('CREATE TABLE audited (id bigserial PRIMARY KEY, c1 text NOT NULL)')
  const ledger = new AckLedger()
  // ten rows as written, acknowledged with the fingerprint of c1
  for (let n = 1; n <= 10; n++) {
    const c1 = `${(0x1000 + n * 997).toString(16)}-row-${n}`
    const {
      rows: [{ id }]
    } = await client.query('INSERT INTO audited (c1) VALUES ($1) RETURNING id', [c1])
    ledger.add(Number(id), parseInt(c1.slice(0, 4), 16))
  }
  // id 5 acknowledged again: only the unique index's say-so is needed
  ledger.add(5, parseInt((await client.query('SELECT c1 FROM audited WHERE id = 5')).rows[0].c1.slice(0, 4), 16))
  await client.query('DELETE FROM audited WHERE id = 3') // gone, the sequence went past it: missing
  await client.query("UPDATE audited SET c1 = 'ffff-another' WHERE id = 4") // another row holds id 4: vanished
  await client.query('DELETE FROM audited WHERE id > 7') // gone with the sequence: vanished
  await client.query("SELECT setval('audited_id_seq', 7)")
  const audit = await auditInserts(client, 'audited', FINGERPRINT, ledger, 10000)
  t.same(
    audit,
    { present: 5, vanished: 5, missing: 1, inDoubtStored: 0 },
    'present: 1, 2, 5, 6, 7; vanished: 4, 8, 9, 10 and the first 5; missing: 3'
  )
  t.equal(ledger.acknowledged, 11, 'eleven acknowledgements')

  const byIdOnly = await auditInserts(client, 'audited', null, ledger, 10000)
  t.same(
    byIdOnly,
    { present: 6, vanished: 4, missing: 1, inDoubtStored: 0 },
    'without a fingerprint the row under id 4 passes for the one written'
  )
})

t.test(
  'a row gone since a restart of the server vanished; one gone under the server that still runs is missing',
  async t => {
    const db = await createTestDatabase(t, 'insert_audit_restart')
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    t.teardown(() => client.end())
    await client.query('CREATE TABLE audited (id bigserial PRIMARY KEY, c1 text NOT NULL)')
    await client.query("INSERT INTO audited (c1) SELECT 'abcd-' || g FROM generate_series(1, 6) g")
    const started = (await client.query('SELECT pg_postmaster_start_time()::text AS started')).rows[0].started
    const ledger = new AckLedger()
    const fingerprint = parseInt('abcd', 16)
    ledger.add(1, fingerprint)
    ledger.add(2, fingerprint)
    // the run saw an earlier server, then this one
    ledger.nextIncarnation()
    const incarnations = new Map([
      ['an earlier start', 0],
      [started, 1]
    ])
    ledger.add(3, fingerprint)
    ledger.add(4, fingerprint)
    ledger.add(5, fingerprint, 0) // a reply of the earlier server, read late
    ledger.add(6, fingerprint)
    await client.query('DELETE FROM audited WHERE id IN (2, 4, 5)')
    t.same(
      await auditInserts(client, 'audited', FINGERPRINT, ledger, 10000, incarnations),
      { present: 3, vanished: 2, missing: 1, inDoubtStored: 0 },
      'present: 1, 3, 6; vanished: 2 and 5 (acknowledged by the earlier server); missing: 4'
    )
    const restartedAfter = new Map([
      ['an earlier start', 0],
      ['a later start', 1],
      [started, 2]
    ])
    t.same(
      await auditInserts(client, 'audited', FINGERPRINT, ledger, 10000, restartedAfter),
      { present: 3, vanished: 3, missing: 0, inDoubtStored: 0 },
      "a server that restarted after the run's last connection: every row gone vanished"
    )
  }
)

t.test(
  'inserts left in doubt: the rows under ids nobody acknowledged, above the max id at the start, ' +
    'matched by fingerprint',
  async t => {
    const db = await createTestDatabase(t, 'insert_audit_doubt')
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    t.teardown(() => client.end())
    await client.query('CREATE TABLE audited (id bigserial PRIMARY KEY, c1 text NOT NULL)')
    // ids 1-2 before the run; the run: 3 and 5 acknowledged, 4 and 6 committed
    // without an acknowledgement, 7 sent and never committed (its id taken, no row)
    await client.query(
      "INSERT INTO audited (c1) VALUES ('0001-before'), ('0002-before'), ('aaaa-3'), ('bbbb-4'), ('cccc-5'), ('dddd-6')"
    )
    await client.query("SELECT nextval('audited_id_seq')")
    const ledger = new AckLedger()
    ledger.add(3, 0xaaaa)
    ledger.add(5, 0xcccc)
    const doubt = {
      inDoubt: [{ fingerprint: 0xbbbb }, { fingerprint: 0xdddd }, { fingerprint: 0xeeee }],
      startMaxId: 2
    }
    t.same(
      await auditInserts(client, 'audited', FINGERPRINT, ledger, 10000, new Map(), doubt),
      { present: 2, vanished: 0, missing: 0, inDoubtStored: 2 },
      'two of the three in doubt committed: the rows under 4 and 6; the one under 7 never did'
    )
    const notTheirs = { inDoubt: [{ fingerprint: 0x1234 }], startMaxId: 2 }
    t.equal(
      (await auditInserts(client, 'audited', FINGERPRINT, ledger, 10000, new Map(), notTheirs))?.inDoubtStored,
      0,
      'a row another writer put under an unacknowledged id is not an in-doubt insert of the run'
    )
    const unknown = { inDoubt: [{ fingerprint: 0 }, { fingerprint: 0 }, { fingerprint: 0 }], startMaxId: 2 }
    t.equal(
      (await auditInserts(client, 'audited', null, ledger, 10000, new Map(), unknown))?.inDoubtStored,
      2,
      'without fingerprints every unacknowledged row counts, up to the inserts in doubt'
    )
    const fromFour = { inDoubt: [{ fingerprint: 0xbbbb }, { fingerprint: 0xdddd }], startMaxId: 4 }
    t.equal(
      (await auditInserts(client, 'audited', FINGERPRINT, ledger, 10000, new Map(), fromFour))?.inDoubtStored,
      1,
      "ids at or below the max id at the start are not the run's"
    )
  }
)

t.test('fingerprints fold into 1…65535 the same way for every integer', async t => {
  t.equal(foldFingerprint(0), 1)
  t.equal(foldFingerprint(65534), 65535)
  t.equal(foldFingerprint(65535), 1)
  t.equal(foldFingerprint(-1), 65535)
  const ledger = new AckLedger()
  ledger.add(70000, 12345)
  t.equal(ledger.get(70000), foldFingerprint(12345))
  t.same([...ledger.batches(10)], [[70000]])
  t.equal(ledger.size, 1)
})

t.test(
  'fingerprints of any type are judged as the client folds them: negative, past 2^53, numeric, text, null',
  async t => {
    const db = await createTestDatabase(t, 'insert_audit_types')
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    t.teardown(() => client.end())
    await client.query('CREATE TABLE audited (id bigserial PRIMARY KEY, n bigint, x numeric, s text)')
    // 2^53 + 1 reads back as 2^53 in JavaScript: the client's fold of it is what counts
    const rows = [
      [-5, '-5', '-5'],
      [2 ** 53 + 1, '1.5', 'abc'],
      [null, null, null],
      [70000, '70000', '70000']
    ]
    const ledger = new AckLedger()
    for (const [n, x, s] of rows) {
      const {
        rows: [{ id }]
      } = await client.query('INSERT INTO audited (n, x, s) VALUES ($1::text::bigint, $2, $3) RETURNING id', [
        n === null ? null : String(n === 2 ** 53 + 1 ? '9007199254740993' : n),
        x,
        s
      ])
      ledger.add(Number(id), n === null ? 0 : Number(n))
    }
    // what each row's fingerprint is, read the way the client reads it, against what the ledger holds
    for (const expression of ['n', 'x', 's', 'n * 2']) {
      const { rows: stored } = await client.query({
        text: `SELECT id, ${expression} AS fp FROM audited ORDER BY id`,
        rowMode: 'array'
      })
      const present = stored.filter(([id, fp]) => foldFingerprint(Number(fp)) === ledger.get(Number(id))).length
      t.same(
        await auditInserts(client, 'audited', expression, ledger, 10000),
        { present, vanished: 4 - present, missing: 0, inDoubtStored: 0 },
        `${expression}: ${present} of 4 present`
      )
    }
  }
)
