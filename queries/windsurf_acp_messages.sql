-- Windsurf / Devin Desktop `acp-messages/<uuid>.db`: the session's messages, in order.
SELECT position, kind, payload FROM messages ORDER BY position
