SELECT max(id) FROM test_table;
