-- Crush: one session's messages in the order they were written.
SELECT id, role, parts, model, created_at FROM messages WHERE session_id = ?1 ORDER BY created_at, rowid
