-- search_sessions when the turn and session columns come from the in-memory directory: the
-- hit events' columns and the text the snippet is cut from. $1: the hits' event ids; $2:
-- their session ids (row groups, bloom filters); $3: their sources and $4: their months
-- (partitions), all from the search index.
SELECT
  event_id,
  type,
  timestamp,
  ordinal,
  terminal,
  text
FROM events
WHERE array_has($1, event_id)
  AND array_has($2, session_id)
  AND array_has($3, source)
  AND array_has($4, month)
