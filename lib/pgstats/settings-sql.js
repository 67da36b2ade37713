// The server settings the lab reads, every 10 s with the slow part of a
// poll (rows.js parseSettings turns them into one row of base units):
// autovacuum's, which the forecasts and the vacuum figures depend on, and
// the connection slots, which the cause "every connection slot taken"
// counts against.
const SETTING_NAMES = [
  'autovacuum',
  'autovacuum_freeze_max_age',
  'autovacuum_vacuum_threshold',
  'autovacuum_vacuum_scale_factor',
  'autovacuum_naptime',
  'autovacuum_vacuum_cost_delay',
  'vacuum_cost_delay',
  'autovacuum_max_workers',
  'max_connections',
  'superuser_reserved_connections',
  'reserved_connections'
]

// and, as two more rows of the same shape, when the server started and how
// many databases the autovacuum launcher visits in turn: its first round of
// visits comes a naptime after the start (autovacuum-rule.js startAfter)
export const SETTINGS = `SELECT name, setting, unit FROM pg_settings WHERE name IN (${SETTING_NAMES.map(name => `'${name}'`).join(', ')})
UNION ALL SELECT 'server_started_at', extract(epoch FROM pg_postmaster_start_time())::text, NULL
UNION ALL SELECT 'connectable_databases', count(*)::text, NULL FROM pg_database WHERE datallowconn`
