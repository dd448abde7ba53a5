-- open(turn), open(event): a turn's summary row with its session's title and source.
-- $1: turn id.
SELECT
  t.turn_id,
  t.session_id,
  t.ordinal,
  t.completed,
  t.terminal_event_id,
  t.event_count,
  t.input_tokens,
  t.cached_input_tokens,
  t.output_tokens,
  t.reasoning_tokens,
  t.total_tokens,
  t.started_at,
  t.updated_at,
  t.first_event_id,
  t.last_event_id,
  t.user_input_event_id,
  t.user_input_text,
  t.user_input_truncated,
  t.final_response_event_id,
  t.final_response_text,
  t.final_response_truncated,
  t.tools_called,
  t.event_types,
  s.title,
  s.source
FROM turns AS t
JOIN sessions AS s ON s.session_id = t.session_id
WHERE t.turn_id = $1
