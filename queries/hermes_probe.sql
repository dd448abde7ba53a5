-- Hermes Agent: the sessions and messages tables have the columns the reader needs (fails to
-- prepare otherwise).
SELECT s.id, s.source, s.started_at, m.id, m.session_id, m.role, m.content, m.timestamp
FROM sessions s, messages m
LIMIT 0
