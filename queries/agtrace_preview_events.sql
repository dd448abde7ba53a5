-- agtrace search_event_previews: the hit events' rows.
-- $1: event ids; $2: their session ids (row groups); $3: their partitions as
-- 'source/month' (exactly those partitions are opened), all from the search index.
SELECT
  event_id,
  session_id,
  source,
  seq,
  type,
  timestamp,
  tool_name,
  subtype,
  left(text, 400) AS text_head,
  left(payload, 2000) AS payload_head,
  character_length(payload) AS payload_chars
FROM events
WHERE array_has($1, event_id)
  AND array_has($2, session_id)
  AND array_has($3, concat(source, '/', month))
