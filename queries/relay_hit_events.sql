-- relay search_history: the rows of a page of hit events.
-- $1: event ids; $2: their session ids (row groups); $3: their partitions as
-- 'source/month' (exactly those partitions are opened), all from the search index.
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
WHERE array_has($1, event_id)
  AND array_has($2, session_id)
  AND array_has($3, concat(source, '/', month))
