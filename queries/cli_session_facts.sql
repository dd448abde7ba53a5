-- esker search / sessions: what the terminal shows of a session beyond the tools' answers
-- (project, working directory, model). $1: the session ids.
SELECT
  session_id,
  project,
  cwd,
  model
FROM sessions
WHERE array_has($1, session_id)
