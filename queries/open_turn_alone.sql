-- open(turn): the turn's summary row (its session's title and source come with its
-- neighbourhood, queries/turn_neighbourhood.sql). $1: session id (prunes buckets and row
-- groups); $2: turn id.
SELECT
  turn_id,
  session_id,
  ordinal,
  completed,
  terminal_event_id,
  event_count,
  input_tokens,
  cached_input_tokens,
  output_tokens,
  reasoning_tokens,
  total_tokens,
  started_at,
  updated_at,
  first_event_id,
  last_event_id,
  user_input_event_id,
  user_input_text,
  user_input_truncated,
  final_response_event_id,
  final_response_text,
  final_response_truncated,
  tools_called,
  event_types
FROM turns
WHERE session_id = $1
  AND turn_id = $2
