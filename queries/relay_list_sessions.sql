-- relay list_sessions without a slug: most recently active first, optionally of a project
-- (case-insensitive substring of its directory) and overlapping a date range (updated_at at or
-- after the start, started_at at or before the end).
-- $1: lowercased project substring or ''; $2, $3: whether a start is given and its value;
-- $4, $5: the same for the end; $6: rows to fetch; $7, $8: whether the server is
-- project-scoped and its session set's name (in_session_set).
SELECT
  session_id,
  native_id,
  source,
  to_char(started_at, '%Y-%m') AS month,
  cwd,
  project,
  git_branch,
  started_at,
  updated_at,
  session_slug,
  chain_id,
  chain_slug,
  chain_number,
  chain_length,
  parent_session_id
FROM sessions
WHERE ($1 = '' OR strpos(lower(coalesce(cwd, project, '')), $1) > 0)
  AND (NOT $2 OR updated_at >= $3)
  AND (NOT $4 OR started_at <= $5)
  AND (NOT $7 OR in_session_set(session_id, $8))
ORDER BY updated_at DESC, session_id DESC
LIMIT $6
