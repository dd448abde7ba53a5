-- open(session): compact summaries of every turn of the sessions, by session and ordinal.
-- $1: session ids (one, or the members of a chain range).
SELECT
  session_id,
  turn_id,
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
  user_input_event_id,
  user_input_text,
  user_input_truncated,
  final_response_event_id,
  final_response_text,
  final_response_truncated,
  tools_called,
  event_types
FROM turns
WHERE array_has($1, session_id)
ORDER BY session_id, ordinal
