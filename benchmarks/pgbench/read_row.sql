\set id random(1, :maxid)
SELECT id, c1, c2, c3, c4, c5 FROM test_table WHERE id = :id;
