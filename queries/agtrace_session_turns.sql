-- agtrace get_session_details: the turns of a window of a session, by ordinal.
-- $1: session id; $2, $3: first ordinal and the ordinal after the last.
SELECT
  ordinal,
  started_at,
  updated_at,
  completed,
  event_count,
  user_input_text,
  tools_called
FROM turns
WHERE session_id = $1
  AND ordinal >= $2
  AND ordinal < $3
ORDER BY ordinal
