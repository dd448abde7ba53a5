-- Amazon Q Developer CLI: the row of a conversation (its directory and state; no times).
SELECT key, value, NULL, NULL
FROM conversations
WHERE coalesce(CASE WHEN json_valid(value) THEN json_extract(value, '$.conversation_id') END, key) = ?1
ORDER BY key
LIMIT 1
