-- Zed: one thread's document and how it is encoded (`json`, or `zstd` for a compressed frame).
SELECT data_type, data FROM threads WHERE id = ?1
