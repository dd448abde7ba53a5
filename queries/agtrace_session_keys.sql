-- agtrace profile: every session's native id, to resolve native ids, unique prefixes and
-- esker ids (loaded once per generation). month is the session's events partition (the UTC
-- month of its start, as the writer derives it).
SELECT
  session_id,
  native_id,
  source,
  to_char(started_at, '%Y-%m') AS month,
  turn_count,
  event_count
FROM sessions
