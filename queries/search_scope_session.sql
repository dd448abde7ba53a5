-- search_sessions: does the session named by within_id exist? $1: session id.
SELECT session_id
FROM sessions
WHERE session_id = $1
