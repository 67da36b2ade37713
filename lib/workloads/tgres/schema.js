// Tgres's tables, as its PostgreSQL serde creates them (serde/postgres.go,
// createTablesIfNotExist), without its table prefix, views and triggers:
// series (ds), their round-robin archives (rra) grouped in bundles of one
// step and size (rra_bundle), each segment's archive state (rra_state), and
// the data points (ts): one row per slot of a segment, one array element
// per series. Not made: ds_state (a series' last raw value), dsl_cache.
// One more table of the lab's own holds the figures a run started from.

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS ds (
  id SERIAL NOT NULL PRIMARY KEY,
  ident JSONB NOT NULL DEFAULT '{}' CONSTRAINT nonempty_ident CHECK (ident <> '{}'),
  step_ms BIGINT NOT NULL,
  heartbeat_ms BIGINT NOT NULL,
  seg INT NOT NULL,
  idx INT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  created BOOL NOT NULL DEFAULT true);
CREATE UNIQUE INDEX IF NOT EXISTS idx_ds_ident_uniq ON ds (ident);
CREATE INDEX IF NOT EXISTS idx_ds_ident ON ds USING gin (ident);

CREATE TABLE IF NOT EXISTS rra_bundle (
  id SERIAL NOT NULL PRIMARY KEY,
  step_ms INT NOT NULL,
  size INT NOT NULL,
  last_pos INT NOT NULL DEFAULT 0,
  width INT NOT NULL DEFAULT 200);
CREATE UNIQUE INDEX IF NOT EXISTS idx_rra_bundle_spec ON rra_bundle (step_ms, size);

CREATE TABLE IF NOT EXISTS rra_state (
  rra_bundle_id INT NOT NULL REFERENCES rra_bundle (id) ON DELETE CASCADE,
  seg INT NOT NULL,
  latest TIMESTAMPTZ[] NOT NULL DEFAULT '{}',
  duration_ms BIGINT[] NOT NULL DEFAULT '{}',
  value DOUBLE PRECISION[] NOT NULL DEFAULT '{}');
CREATE UNIQUE INDEX IF NOT EXISTS idx_rra_state_bundle_id_seg ON rra_state (rra_bundle_id, seg);

CREATE TABLE IF NOT EXISTS rra (
  id SERIAL NOT NULL PRIMARY KEY,
  ds_id INT NOT NULL REFERENCES ds (id) ON DELETE CASCADE,
  rra_bundle_id INT NOT NULL REFERENCES rra_bundle (id) ON DELETE RESTRICT,
  cf TEXT NOT NULL,
  pos INT NOT NULL,
  seg INT NOT NULL,
  idx INT NOT NULL,
  xff REAL NOT NULL DEFAULT 0,
  value DOUBLE PRECISION NOT NULL DEFAULT 'NaN',
  duration_ms BIGINT NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX IF NOT EXISTS idx_rra_rra_bundle_id ON rra (ds_id, rra_bundle_id, cf);

CREATE TABLE IF NOT EXISTS ts (
  rra_bundle_id INT NOT NULL REFERENCES rra_bundle (id) ON DELETE CASCADE,
  seg INT NOT NULL,
  i INT NOT NULL,
  dp DOUBLE PRECISION[] NOT NULL DEFAULT '{}',
  ver SMALLINT[] NOT NULL DEFAULT '{}');
CREATE UNIQUE INDEX IF NOT EXISTS idx_ts_rra_bundle_id_seg_i ON ts (rra_bundle_id, seg, i);

CREATE TABLE IF NOT EXISTS pgloadgen_tgres_run (
  started_at TIMESTAMPTZ NOT NULL,
  ts_updates BIGINT NOT NULL,
  ts_hot_updates BIGINT NOT NULL,
  ts_autovacuums BIGINT NOT NULL);
`

export const DROP = 'DROP TABLE IF EXISTS pgloadgen_tgres_run, ts, rra, rra_state, rra_bundle, ds;\n'
