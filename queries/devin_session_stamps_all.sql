-- Devin CLI, a sessions.db older than its `hidden`, `main_chain_id` or `title` columns: one row
-- per session with every column of its row and the number and newest row of its message nodes.
SELECT s.id, s.*,
    (SELECT count(*) FROM message_nodes m WHERE m.session_id = s.id),
    (SELECT max(m.rowid) FROM message_nodes m WHERE m.session_id = s.id)
FROM sessions s
ORDER BY s.id
