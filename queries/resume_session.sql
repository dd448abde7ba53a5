-- esker resume / esker show: what resuming a session needs: its harness (`source`), the
-- harness's own id for it, where it ran, the log it was read from (a cursor-agent chat or a
-- Goose legacy file resumes differently) and the session it is a sub-agent of. $1: session id.
SELECT
  session_id,
  source,
  native_id,
  cwd,
  source_path,
  parent_session_id
FROM sessions
WHERE session_id = $1
