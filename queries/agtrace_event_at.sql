-- agtrace get_event_details: one event, whole, by its position in the session, and whether
-- it is a failed tool result (the rule of agtrace_session_events.sql).
-- $1: session id; $2, $3: its source and month (partition); $4: seq (event_index + 1).
SELECT
  event_id,
  seq,
  turn_ordinal,
  type,
  timestamp,
  model,
  tool_name,
  tool_call_id,
  exit_code,
  subtype,
  text,
  payload,
  (
    type = 'tool_response'
    AND (
      coalesce(exit_code, 0) <> 0
      OR strpos(coalesce(payload, ''), '"is_error":true') > 0
      OR strpos(coalesce(payload, ''), '"status":"error"') > 0
      OR strpos(coalesce(payload, ''), '"status":"failed"') > 0
      OR coalesce(subtype, '') = 'error'
    )
  ) AS failed
FROM events
WHERE session_id = $1
  AND source = $2
  AND month = $3
  AND seq = $4
