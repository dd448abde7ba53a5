-- The server's in-memory directory: what a search hit or an open(event) shows of a turn, and
-- each session's turn order.
SELECT
  turn_id,
  session_id,
  ordinal,
  completed,
  event_count
FROM turns
