-- agtrace get_session_details: the next turns of a session, from an ordinal on. Pages follow
-- the turns the table holds (never a count of them computed elsewhere), so every stored turn
-- is reached exactly once (issue #48).
-- $1: session id; $2: first ordinal; $3: most turns returned (one more than a page's window
-- tells the next page's first ordinal).
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
ORDER BY ordinal
LIMIT $3
