-- esker search / sessions: what the terminal shows of a session beyond the tools' answers
-- (project, working directory, model). $1: the session ids. A key lookup in the in-memory
-- `session_index` once loaded (a warm server, the resident recall), else a read of
-- `sessions` pinned to the ids' buckets.
SELECT
  session_id,
  project,
  cwd,
  model
FROM session_index
WHERE array_has($1, session_id)
