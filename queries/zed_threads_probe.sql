-- Zed: the threads table has the columns the reader needs (fails to prepare otherwise).
SELECT id, summary, updated_at, data_type, data FROM threads LIMIT 0
