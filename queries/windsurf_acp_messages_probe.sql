-- Windsurf / Devin Desktop `acp-messages/<uuid>.db`: the `meta` and `messages` columns the reader
-- needs (fails to prepare otherwise).
SELECT m.position, m.kind, m.payload, t.key, t.value
FROM messages m, meta t
LIMIT 0
