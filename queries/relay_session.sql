-- relay get_conversation: the session an exact id names (a native id or an esker session id).
-- month is its events partition (the UTC month of its start). $1: the id; $2, $3: whether the
-- server is project-scoped and its session set's name (in_session_set) (src/service/project_scope.rs).
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
WHERE (session_id = $1 OR native_id = $1)
  AND (NOT $2 OR in_session_set(session_id, $3))
ORDER BY session_id
LIMIT 1
