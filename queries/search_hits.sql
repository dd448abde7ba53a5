-- search_sessions: event, turn and session metadata of the index hits, plus the event text
-- the snippet is cut from. $1: the hits' event ids; $2: their session ids (row groups, bloom
-- filters); $3: their partitions as 'source/month'; $4: their turn ids.
SELECT
  e.event_id,
  e.type,
  e.timestamp,
  e.ordinal,
  e.terminal,
  e.text,
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
FROM events AS e
JOIN turns AS t ON t.turn_id = e.turn_id
JOIN sessions AS s ON s.session_id = e.session_id
WHERE array_has($1, e.event_id)
  AND array_has($2, e.session_id)
  AND array_has($3, concat(e.source, '/', e.month))
  AND array_has($4, t.turn_id)
  AND array_has($2, t.session_id)
  AND array_has($2, s.session_id)
