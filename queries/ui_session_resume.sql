-- esker ui: what a session's resume command needs (its harness, the harness's own id, the
-- working directory). $1: the session id.
SELECT
  source,
  native_id,
  cwd,
  parent_session_id
FROM sessions
WHERE session_id = $1
