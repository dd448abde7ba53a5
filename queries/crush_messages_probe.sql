-- Crush: the messages table has the columns the reader needs (fails to prepare otherwise).
SELECT id, session_id, role, parts, model, created_at, updated_at FROM messages LIMIT 0
