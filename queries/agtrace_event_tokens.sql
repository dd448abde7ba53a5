-- agtrace: token counts of the events of a window of turns that record usage (only run when
-- the store has token columns). $1: session id; $2, $3: its source and month (partition);
-- $4, $5: turn ordinal window.
SELECT
  seq,
  input_tokens,
  cached_input_tokens,
  output_tokens,
  reasoning_tokens,
  total_tokens
FROM events
WHERE session_id = $1
  AND source = $2
  AND month = $3
  AND turn_ordinal >= $4
  AND turn_ordinal < $5
  AND (input_tokens IS NOT NULL OR output_tokens IS NOT NULL OR total_tokens IS NOT NULL)
