-- agtrace profile: every session's native id, to resolve native ids, unique prefixes and
-- esker ids (loaded once per generation).
SELECT
  session_id,
  native_id,
  source,
  event_count
FROM sessions
