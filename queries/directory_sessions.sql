-- The server's in-memory directory: what a search hit, an open(event) or a list_sessions
-- page shows of a session (`parent_session_id` only says whether it is a sub-agent's).
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
  mode,
  session_slug,
  chain_slug,
  chain_number,
  chain_length,
  parent_session_id,
  session_summary
FROM sessions
