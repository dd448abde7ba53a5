-- agtrace: the events of a window of turns of a session, in session order, with text and
-- payload cut to a head (get_session_details, analyze_session).
-- `failed` is the profile's rule for a failed tool result, per harness: a non-zero exit code,
-- Claude/MCP `is_error: true`, or an error/failed status (Gemini tool status, Codex exec status).
-- $1: session id; $2, $3: first turn ordinal and the ordinal after the last; $4: head length.
SELECT
  seq,
  turn_ordinal,
  type,
  timestamp,
  tool_name,
  tool_call_id,
  exit_code,
  subtype,
  left(text, $4) AS text_head,
  character_length(text) AS text_chars,
  left(payload, $4) AS payload_head,
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
  AND turn_ordinal >= $2
  AND turn_ordinal < $3
ORDER BY seq
