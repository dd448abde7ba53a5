-- open(session): the sub-agent sessions the sessions spawned, oldest first. $1: session ids
-- (one, or the members of a chain range).
SELECT parent_session_id, session_id
FROM sessions
WHERE array_has($1, parent_session_id)
ORDER BY started_at, session_id
