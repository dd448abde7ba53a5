-- Warp: a conversation's prompts as sent, oldest first.
SELECT exchange_id, start_ts, input, working_directory, output_status, model_id
FROM ai_queries
WHERE conversation_id = ?1
ORDER BY start_ts, id
