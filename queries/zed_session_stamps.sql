-- Zed: one row per thread with what changes when Zed saves it again (its update time, the size
-- and encoding of its document).
SELECT id, updated_at, length(data), data_type
FROM threads
ORDER BY id
