-- open(session): the sub-agent sessions the sessions spawned, oldest first. $1: session ids
-- (one, or the members of a chain range). Read from `session_index` (in memory once the
-- directory is loaded): `sessions` is 16 files by session id, and a parent id prunes none.
SELECT parent_session_id, session_id
FROM session_index
WHERE array_has($1, parent_session_id)
ORDER BY started_at, session_id
