-- Goose: the messages table has the columns the reader needs (fails to prepare otherwise).
SELECT id, session_id, role, content_json, created_timestamp FROM messages LIMIT 0
