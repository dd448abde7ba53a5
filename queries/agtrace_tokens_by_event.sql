-- agtrace search_event_previews: token counts of TokenUsage hits (only run when the store has
-- token columns). $1: event ids; $2: their session ids (prunes files).
SELECT
  event_id,
  input_tokens,
  cached_input_tokens,
  output_tokens,
  reasoning_tokens,
  total_tokens
FROM events
WHERE array_has($1, event_id)
  AND array_has($2, session_id)
