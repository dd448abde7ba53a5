-- open(event), located: the full event row. $1: event id; $2: its session id and $3: its
-- source, from the search index (prune partitions by source, row groups by session_id).
SELECT
  event_id,
  session_id,
  turn_id,
  turn_ordinal,
  ordinal,
  type,
  timestamp,
  terminal,
  model,
  originating_model,
  tool_name,
  tool_call_id,
  exit_code,
  subtype,
  text,
  payload
FROM events
WHERE event_id = $1
  AND session_id = $2
  AND source = $3
