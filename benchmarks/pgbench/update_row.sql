\set id random(1, :maxid)
BEGIN;
SELECT id FROM test_table WHERE id = :id FOR UPDATE;
UPDATE test_table SET c1 = gen_random_uuid()::text, c2 = gen_random_uuid()::text, c3 = gen_random_uuid()::text, c4 = gen_random_uuid()::text, c5 = gen_random_uuid()::text WHERE id = :id;
COMMIT;
