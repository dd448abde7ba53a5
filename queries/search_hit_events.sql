-- search_sessions: the hit events' columns and the text the snippet is cut from, run beside
-- queries/search_hit_parents.sql (their turns and sessions). $1: the hits' event ids; $2:
-- their session ids (row groups, bloom filters); $3: their partitions as 'source/month', all
-- from the search index. The partition filter names each hit's partition exactly: filters on
-- source and month apart would open every partition of their cross product, and each file
-- opened costs about a millisecond.
SELECT
  event_id,
  type,
  timestamp,
  ordinal,
  terminal,
  text
FROM events
WHERE array_has($1, event_id)
  AND array_has($2, session_id)
  AND array_has($3, concat(source, '/', month))
