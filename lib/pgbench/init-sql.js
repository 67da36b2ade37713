// What `pgbench -i` sends: the statements of each step and the COPY text of
// the rows, written from pgbench's definitions of its four tables.

import pg from 'pg'

/** Rows per unit of scale. */
export const TELLERS_PER_BRANCH = 10
export const ACCOUNTS_PER_BRANCH = 100000

// From this scale on, account ids no longer fit in a 32-bit int (the true
// limit is 21474; pgbench rounds down to a number easy to document).
const SCALE_BIGINT_AID = 20000

// Dropped and truncated in one statement each, so that foreign keys between
// them do not matter.
const ALL_TABLES = 'pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers'

/**
 * pgbench's tables in its order of creation. Only pgbench_accounts' filler
 * is ever filled (with blanks, from ''); the others stay NULL, which keeps
 * results comparable with every earlier pgbench.
 * @type {ReadonlyArray<{ table: string, columns: string, bigAidColumns: string, fillfactor: boolean }>}
 */
const TABLES = [
  {
    table: 'pgbench_history',
    columns: 'tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)',
    bigAidColumns: 'tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)',
    fillfactor: false
  },
  {
    table: 'pgbench_tellers',
    columns: 'tid int not null,bid int,tbalance int,filler char(84)',
    bigAidColumns: 'tid int not null,bid int,tbalance int,filler char(84)',
    fillfactor: true
  },
  {
    table: 'pgbench_accounts',
    columns: 'aid    int not null,bid int,abalance int,filler char(84)',
    bigAidColumns: 'aid bigint not null,bid int,abalance int,filler char(84)',
    fillfactor: true
  },
  {
    table: 'pgbench_branches',
    columns: 'bid int not null,bbalance int,filler char(88)',
    bigAidColumns: 'bid int not null,bbalance int,filler char(88)',
    fillfactor: true
  }
]

export const DROP_TABLES = `drop table if exists ${ALL_TABLES}`
export const TRUNCATE_TABLES = `truncate table ${ALL_TABLES}`

export const VACUUM = [
  'vacuum analyze pgbench_branches',
  'vacuum analyze pgbench_tellers',
  'vacuum analyze pgbench_accounts',
  'vacuum analyze pgbench_history'
]

export const FOREIGN_KEYS = [
  'alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches',
  'alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches',
  'alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches',
  'alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers',
  'alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts'
]

/**
 * CREATE TABLE statements, then one per partition of pgbench_accounts.
 * @param {import('./init-options.js').InitOptions} options
 * @param {number} serverVersion  server_version_num
 * @returns {string[]}
 */
export function createTables(options, serverVersion) {
  const partitioned = options.partitionMethod !== 'none'
  const tablespace = options.tablespace === null ? '' : ` tablespace ${pg.escapeIdentifier(options.tablespace)}`
  const statements = TABLES.map(ddl => {
    const isAccounts = ddl.table === 'pgbench_accounts'
    // Since PostgreSQL 18 a partitioned table cannot be unlogged: only its
    // partitions are. Before 18 pgbench marked the parent too.
    const unlogged = options.unlogged && !(isAccounts && partitioned && serverVersion >= 180000)
    let sql = `create${unlogged ? ' unlogged' : ''} table ${ddl.table}(${options.scale >= SCALE_BIGINT_AID ? ddl.bigAidColumns : ddl.columns})`
    if (isAccounts && partitioned) sql += ` partition by ${options.partitionMethod} (aid)`
    else if (ddl.fillfactor) sql += ` with (fillfactor=${options.fillfactor})`
    return sql + tablespace
  })
  for (let p = 1; p <= options.partitions; p++) statements.push(createPartition(options, p))
  return statements
}

/**
 * Range partitions split the accounts in nearly equal parts; the first and
 * the last are open-ended so that any aid has a home.
 * @param {import('./init-options.js').InitOptions} options
 * @param {number} p  1-based
 */
function createPartition(options, p) {
  const { partitions } = options
  let bounds
  if (options.partitionMethod === 'range') {
    const size = Math.floor((ACCOUNTS_PER_BRANCH * options.scale + partitions - 1) / partitions)
    const from = p === 1 ? 'minvalue' : String((p - 1) * size + 1)
    const to = p < partitions ? String(p * size + 1) : 'maxvalue'
    bounds = `for values from (${from}) to (${to})`
  } else {
    bounds = `for values with (modulus ${partitions}, remainder ${p - 1})`
  }
  return `create${options.unlogged ? ' unlogged' : ''} table pgbench_accounts_${p}\n  partition of pgbench_accounts\n  ${bounds} with (fillfactor=${options.fillfactor})`
}

/**
 * @param {import('./init-options.js').InitOptions} options
 * @returns {string[]}
 */
export function primaryKeys(options) {
  const where =
    options.indexTablespace === null ? '' : ` using index tablespace ${pg.escapeIdentifier(options.indexTablespace)}`
  return [
    `alter table pgbench_branches add primary key (bid)${where}`,
    `alter table pgbench_tellers add primary key (tid)${where}`,
    `alter table pgbench_accounts add primary key (aid)${where}`
  ]
}

/**
 * The rows generated in the server, without the truncate and the
 * transaction around them.
 * @param {number} scale
 * @returns {string[]}
 */
export function serverSideInserts(scale) {
  return [
    `insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, ${scale}) as bid`,
    `insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / ${TELLERS_PER_BRANCH} + 1, 0 from generate_series(1, ${TELLERS_PER_BRANCH * scale}) as tid`,
    `insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / ${ACCOUNTS_PER_BRANCH} + 1, 0, '' from generate_series(1, ${ACCOUNTS_PER_BRANCH * scale}) as aid`
  ]
}

/**
 * How one of the three filled tables is loaded by COPY: each row has a key
 * 1..perBranch × scale, the branch it belongs to, a zero balance and the
 * filler (NULL, or '' for accounts).
 * @typedef {object} CopyTable
 * @property {string} table
 * @property {number} perBranch
 * @property {(key: number, bid: number) => string} row  as COPY text, newline included
 */

/** @type {ReadonlyArray<CopyTable>} in the order of loading: foreign keys may already exist */
export const COPY_TABLES = [
  { table: 'pgbench_branches', perBranch: 1, row: bid => `${bid}\t0\t\\N\n` },
  { table: 'pgbench_tellers', perBranch: TELLERS_PER_BRANCH, row: (tid, bid) => `${tid}\t${bid}\t0\t\\N\n` },
  { table: 'pgbench_accounts', perBranch: ACCOUNTS_PER_BRANCH, row: (aid, bid) => `${aid}\t${bid}\t0\t\n` }
]

/**
 * The COPY statement; FREEZE (PostgreSQL 14+, ordinary tables only, not a
 * partitioned parent) writes the rows frozen, sparing the first vacuum that
 * work. It needs the table truncated in the same transaction.
 * @param {string} table
 * @param {boolean} freeze
 */
export function copyStatement(table, freeze) {
  return `copy ${table} from stdin${freeze ? ' with (freeze on)' : ''}`
}

/**
 * The rows of one table as COPY text, in chunks of about chunkBytes, made
 * as they are consumed so that the table is never held in memory.
 * onChunk(rowsSoFar) is called after each chunk is taken.
 * @param {CopyTable} spec
 * @param {number} scale
 * @param {{ chunkBytes?: number, onChunk?: (rows: number) => void }} [options]
 * @returns {Generator<string>}
 */
export function* copyRows(spec, scale, { chunkBytes = 65536, onChunk } = {}) {
  const total = spec.perBranch * scale
  const { perBranch, row } = spec
  let key = 1
  let bid = 1
  let nextBranchAt = perBranch + 1
  while (key <= total) {
    let chunk = ''
    // Each branch's block of keys is contiguous: bid changes only at its end.
    while (key <= total && chunk.length < chunkBytes) {
      if (key === nextBranchAt) {
        bid++
        nextBranchAt += perBranch
      }
      chunk += row(key, bid)
      key++
    }
    yield chunk
    onChunk?.(key - 1)
  }
}
