-- open(turn): every event of the turn by ordinal, with only the head of its text (enough
-- for a one-line summary). $1: session id (prunes files); $2: turn id.
SELECT
  event_id,
  ordinal,
  type,
  timestamp,
  terminal,
  tool_name,
  model,
  left(text, 4000) AS text_head,
  character_length(text) AS text_chars
FROM events
WHERE session_id = $1
  AND turn_id = $2
ORDER BY ordinal
