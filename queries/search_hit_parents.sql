-- search_sessions: the turn and session columns of the hits, run beside
-- queries/search_hit_events.sql. $1: the hits' turn ids; $2: their session ids, both from the
-- search index. Key lookups in the in-memory `turn_index` and `session_index` once loaded,
-- else reads of `turns` and `sessions` pinned to the sessions' buckets.
SELECT
  t.turn_id,
  t.ordinal AS turn_ordinal,
  t.completed AS turn_completed,
  t.event_count AS turn_event_count,
  s.session_id,
  s.title,
  s.source,
  s.started_at,
  s.updated_at,
  s.completed AS session_completed,
  s.chain_slug,
  s.chain_number,
  s.chain_length
FROM turn_index AS t
JOIN session_index AS s ON s.session_id = t.session_id
WHERE array_has($1, t.turn_id)
  AND array_has($2, t.session_id)
  AND array_has($2, s.session_id)
