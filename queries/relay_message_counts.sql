-- relay session rows: message_count, the events relay-search would have extracted (prompts,
-- replies, tool calls). $1: session ids; $2, $3: their sources and months (the partitions).
SELECT
  session_id,
  count(*) AS message_count
FROM events
WHERE array_has($1, session_id)
  AND array_has($2, source)
  AND array_has($3, month)
  AND type IN ('user_input', 'assistant_response', 'tool_call')
GROUP BY session_id
