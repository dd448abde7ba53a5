-- Kiro CLI: one row per conversation (Kiro keeps a conversation under every directory it was
-- used in), with what changes when it saves it again (the newest update time, its rows and
-- their size).
SELECT conversation_id, max(updated_at), count(*), sum(length(value))
FROM conversations_v2
GROUP BY conversation_id
ORDER BY conversation_id
