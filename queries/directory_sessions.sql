-- The server's in-memory directory: what a search hit or an open(event) shows of a session.
SELECT
  session_id,
  title,
  source,
  started_at,
  updated_at,
  completed
FROM sessions
