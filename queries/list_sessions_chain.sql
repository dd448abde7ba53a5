-- list_sessions(slug): the chain named $1 (its members, or the one session that carries the
-- slug alone, not a sub-agent) in chain order (started_at, then session id), restricted to the
-- sessions overlapping [$2, $3) (updated_at >= start and started_at < end), optionally of one
-- mode, keyset-paginated on (started_at, session_id).
-- $1: slug; $2, $3: start and end; $4: mode or '' for any; $5: whether a cursor is given;
-- $6, $7: the cursor's started_at and session id; $8: rows to fetch; $9: source or '' for any.
-- $10: whether the server is scoped; $11: its session set's name (in_session_set).
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
WHERE (chain_slug = $1
    OR (chain_id IS NULL AND parent_session_id IS NULL AND session_slug = $1))
  AND updated_at >= $2
  AND started_at < $3
  AND ($4 = '' OR mode = $4)
  AND (NOT $5 OR started_at > $6 OR (started_at = $6 AND session_id > $7))
  AND ($9 = '' OR source = $9)
  AND (NOT $10 OR in_session_set(session_id, $11))
ORDER BY started_at ASC, session_id ASC
LIMIT $8
