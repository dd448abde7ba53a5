-- open(event): the full event row. $1: event id.
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
