-- relay search_history: the sessions of a page of hits. $1: session ids.
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
WHERE array_has($1, session_id)
