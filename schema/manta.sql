-- The original experiment's table: five text columns, three of them indexed.
-- Idempotent, so that a run can create what is missing without dropping anything.
CREATE SEQUENCE IF NOT EXISTS test_table_id;
CREATE TABLE IF NOT EXISTS test_table (
    id bigint NOT NULL DEFAULT nextval('test_table_id'),
    c1 text,
    c2 text,
    c3 text,
    c4 text,
    c5 text
);
CREATE UNIQUE INDEX IF NOT EXISTS by_id ON test_table (id);
CREATE INDEX IF NOT EXISTS by_c1 ON test_table (c1);
CREATE INDEX IF NOT EXISTS by_c2 ON test_table (c2);
CREATE INDEX IF NOT EXISTS by_c3 ON test_table (c3);
-- Last, once the table is locked (CREATE INDEX takes it even when the index
-- exists): a load already running takes the table's lock and then the
-- sequence's (nextval), so the sequence locked first would deadlock with it.
ALTER SEQUENCE test_table_id OWNED BY test_table.id;
