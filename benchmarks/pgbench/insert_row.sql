INSERT INTO test_table (c1, c2, c3, c4, c5) VALUES (gen_random_uuid()::text, gen_random_uuid()::text, gen_random_uuid()::text, gen_random_uuid()::text, gen_random_uuid()::text) RETURNING id;
