-- open(event): the full event row, located by the search index. $1: source and $2: month
-- (prune to one partition); $3: session id (row groups by min/max, other files by bloom
-- filter); $4: seq (one page by the page index); $5: event id.
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
WHERE source = $1
  AND month = $2
  AND session_id = $3
  AND seq = $4
  AND event_id = $5
