-- Crush: one session's row, every column (they grow by version and are read by name).
SELECT * FROM sessions WHERE id = ?1
