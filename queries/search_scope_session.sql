-- search_sessions: does the session named by within_id exist? $1: session id. A key lookup
-- in the in-memory `session_index` once loaded, else a read of `sessions`.
SELECT session_id
FROM session_index
WHERE session_id = $1
