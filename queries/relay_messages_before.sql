-- relay get_conversation around a time: one session's last messages at or before $8, newest
-- first (the roles and columns of relay_messages.sql).
-- $1: session id; $2, $3: its source and month; $4..$7: the roles wanted (user, assistant,
-- tool_summary, plan); $8: the time; $9: rows to fetch.
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
  AND timestamp <= $8
ORDER BY timestamp DESC, seq DESC
LIMIT $9
