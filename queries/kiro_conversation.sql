-- Kiro CLI: a conversation's newest row (its directory, state and times).
SELECT key, value, created_at, updated_at
FROM conversations_v2
WHERE conversation_id = ?1
ORDER BY updated_at DESC, created_at DESC, key DESC
LIMIT 1
