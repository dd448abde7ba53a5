-- open(turn): every event of the turn by ordinal, with only the head of its text (enough
-- for a one-line summary). $1: source and $2: month (one partition); $3: session id (row
-- groups); $4: the turn's ordinal in the session (pages: rows are sorted by session, seq).
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
WHERE source = $1
  AND month = $2
  AND session_id = $3
  AND turn_ordinal = $4
ORDER BY ordinal
