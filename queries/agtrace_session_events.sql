-- agtrace: the events of a window of turns of a session, in session order, with text and
-- payload cut to a head (get_session_details, analyze_session).
-- `failed` is the profile's rule for a failed tool result, per harness: a non-zero exit code,
-- Claude/MCP `is_error: true`, or an error/failed status (Gemini tool status, Codex exec status).
-- $1: session id; $2, $3: its source and month (the partition, so only its files are opened);
-- $4, $5: first turn ordinal and the ordinal after the last; $6: head length.
SELECT
  seq,
  turn_ordinal,
  type,
  timestamp,
  tool_name,
  tool_call_id,
  exit_code,
  subtype,
  left(text, $6) AS text_head,
  character_length(text) AS text_chars,
  left(payload, $6) AS payload_head,
  character_length(payload) AS payload_chars,
  CASE WHEN type = 'tool_call' THEN md5(coalesce(payload, '')) END AS arguments_digest,
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
  AND turn_ordinal >= $4
  AND turn_ordinal < $5
ORDER BY seq
