-- relay get_conversation: one session's messages in time order, of the roles asked for
-- (user: prompts; assistant: replies; tool_summary: tool calls; plan: Claude's ExitPlanMode
-- calls), optionally only those after a time, at most $10. Tool call payloads (their
-- arguments) are cut to 64 KiB except plans.
-- $1: session id; $2, $3: its source and month (the partition); $4..$7: whether each role
-- is wanted (user, assistant, tool_summary, plan); $8, $9: whether only messages after a time
-- and that time; $10: rows to fetch.
SELECT
  event_id,
  session_id,
  seq,
  type,
  tool_name,
  model,
  timestamp,
  text,
  CASE
    WHEN type = 'tool_call' AND tool_name = 'ExitPlanMode' THEN payload
    WHEN type = 'tool_call' THEN left(payload, 65536)
  END AS payload
FROM events
WHERE session_id = $1
  AND source = $2
  AND month = $3
  AND (
    ($4 AND type = 'user_input')
    OR ($5 AND type = 'assistant_response')
    OR ($6 AND type = 'tool_call' AND coalesce(tool_name, '') <> 'ExitPlanMode')
    OR ($7 AND type = 'tool_call' AND tool_name = 'ExitPlanMode')
  )
  AND (NOT $8 OR timestamp > $9)
ORDER BY timestamp, seq
LIMIT $10
