-- list_sessions, oldest first: sessions overlapping [$1, $2) (updated_at >= start and
-- started_at < end), optionally of one mode, keyset-paginated on (updated_at, session_id).
-- $1, $2: start and end; $3: mode or '' for any; $4: whether a cursor is given;
-- $5, $6: the cursor's updated_at and session id; $7: rows to fetch; $8: source or '' for any.
-- $9: whether the server is scoped; $10: its session set's name (in_session_set).
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
  session_summary
FROM session_index
WHERE updated_at >= $1
  AND started_at < $2
  AND ($3 = '' OR mode = $3)
  AND (NOT $4 OR updated_at > $5 OR (updated_at = $5 AND session_id > $6))
  AND ($8 = '' OR source = $8)
  AND (NOT $9 OR in_session_set(session_id, $10))
ORDER BY updated_at ASC, session_id ASC
LIMIT $7
