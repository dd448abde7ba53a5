-- open(session): the sub-agent sessions this session spawned, oldest first. $1: session id.
SELECT session_id
FROM sessions
WHERE parent_session_id = $1
ORDER BY started_at, session_id
