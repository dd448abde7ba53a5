-- Devin CLI: one session's row, every column (`title`, `main_chain_id`, `hidden`, `metadata` and
-- more were added by later migrations: read by name).
SELECT * FROM sessions WHERE id = ?1
