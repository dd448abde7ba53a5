-- Goose: one session's messages in order.
SELECT id, role, content_json, created_timestamp FROM messages WHERE session_id = ?1 ORDER BY id
