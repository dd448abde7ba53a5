-- esker handoff: every file the tool calls of a session and its sub-agents touched, newest
-- first, folded per file by the pack ("Files touched"). $1: the session ids. `file_touches` is
-- keyed by file name, not session, so this reads the sessions' rows from every bucket (one
-- command's statement, not a tool's).
SELECT
  event_id,
  resolved_path,
  tool,
  mutation
FROM file_touches
WHERE array_has($1, session_id)
ORDER BY timestamp DESC, event_id ASC, path ASC
LIMIT 5000
