-- open(session): the session's metadata and traversal links. $1: session id.
SELECT
  session_id,
  title,
  source,
  started_at,
  updated_at,
  completed,
  turn_count,
  event_count,
  mode,
  session_slug,
  session_summary,
  project,
  cwd,
  git_branch,
  model,
  agent_name,
  parent_session_id,
  forked_from_session_id,
  previous_session_id,
  next_session_id
FROM sessions
WHERE session_id = $1
