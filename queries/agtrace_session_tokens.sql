-- agtrace: sessions' total tokens (only run when the store has token columns).
-- $1: session ids.
SELECT
  session_id,
  total_tokens
FROM sessions
WHERE array_has($1, session_id)
