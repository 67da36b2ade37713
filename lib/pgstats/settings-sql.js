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

export const SETTINGS = `SELECT name, setting, unit FROM pg_settings WHERE name IN (${SETTING_NAMES.map(name => `'${name}'`).join(', ')})`
