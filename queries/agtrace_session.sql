-- agtrace: one session's metadata for get_session_details and analyze_session. $1: session id.
SELECT
  session_id,
  native_id,
  source,
  title,
  model,
  started_at,
  updated_at,
  turn_count,
  event_count,
  encode(sha256(coalesce(cwd, source_path)), 'hex') AS project_hash
FROM sessions
WHERE session_id = $1
