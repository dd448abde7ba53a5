-- open(session): the sessions' metadata and traversal links. $1: session ids (one, or the
-- members of a chain range; a one-value list plans as `session_id = ...`).
SELECT
  session_id,
  title,
  source,
  started_at,
  updated_at,
  completed,
  turn_count,
  event_count,
  input_tokens,
  cached_input_tokens,
  output_tokens,
  reasoning_tokens,
  total_tokens,
  models,
  mode,
  session_slug,
  chain_slug,
  chain_number,
  chain_length,
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
WHERE array_has($1, session_id)
