-- esker handoff: the failures in a session's last turns, newest first (the pack's "Open
-- problems"): tool results with a non-zero exit code or flagged as errors (Claude's
-- `is_error`), and the events the harnesses mark as errors (`error`, Claude's `api_error`).
-- $1: source and $2: month (the session's partition); $3: session id; $4: the first turn
-- ordinal looked at.
SELECT
  event_id,
  turn_ordinal,
  type,
  tool_name,
  exit_code,
  left(text, 1000) AS text_head
FROM events
WHERE source = $1
  AND month = $2
  AND session_id = $3
  AND turn_ordinal >= $4
  AND (
    (exit_code IS NOT NULL AND exit_code <> 0)
    OR subtype IN ('error', 'api_error')
    OR (type = 'tool_response' AND payload LIKE '%"is_error":true%')
  )
ORDER BY seq DESC
LIMIT 20
