-- agtrace profile: every session's native id, to resolve native ids, unique prefixes and
-- esker ids (loaded once per generation). month is the session's events partition (the UTC
-- month of its start, as the writer derives it). Under --project-only, only the sessions inside
-- the project: $1, $2: whether the server is project-scoped and the pattern cwd must match.
SELECT
  session_id,
  native_id,
  source,
  to_char(started_at, '%Y-%m') AS month,
  turn_count,
  event_count
FROM sessions
WHERE NOT $1 OR regexp_like(cwd, $2)
