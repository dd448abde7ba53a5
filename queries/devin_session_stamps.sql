-- Devin CLI: one row per session the CLI has not hidden (`hidden`, later sessions.db versions),
-- with what changes when the CLI writes to it: its activity time, chain head and title, and the
-- number and newest row of its message nodes.
SELECT s.id, s.last_activity_at, s.main_chain_id, s.title,
    (SELECT count(*) FROM message_nodes m WHERE m.session_id = s.id),
    (SELECT max(m.rowid) FROM message_nodes m WHERE m.session_id = s.id)
FROM sessions s
WHERE coalesce(s.hidden, 0) = 0
ORDER BY s.id
