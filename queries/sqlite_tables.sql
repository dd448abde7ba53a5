-- A harness's SQLite store: the names of its tables (recognises the store by its schema).
SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name
