-- agtrace: token sums of a window of turns (only run when the store has token columns).
-- $1: session id; $2, $3: first ordinal and the ordinal after the last.
SELECT
  ordinal,
  input_tokens,
  cached_input_tokens,
  output_tokens,
  reasoning_tokens,
  total_tokens
FROM turns
WHERE session_id = $1
  AND ordinal >= $2
  AND ordinal < $3
