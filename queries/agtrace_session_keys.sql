-- agtrace profile: every session's native id, to resolve native ids, unique prefixes and
-- esker ids (loaded once per generation). month is the session's events partition (the UTC
-- month of its start, as the writer derives it). Under --project-only (or a token's scope), only the sessions
-- inside it: $1, $2: whether the server is project-scoped and its session set's name (in_session_set).
SELECT
  session_id,
  native_id,
  source,
  to_char(started_at, '%Y-%m') AS month,
  turn_count,
  event_count
FROM sessions
WHERE NOT $1 OR in_session_set(session_id, $2)
