-- Hermes Agent: one row per session with everything that changes when Hermes writes to it
-- (every column of its row: end, counters, tokens, title, whatever this version has; and the
-- number and newest id of its messages).
SELECT s.id, s.*,
    (SELECT count(*) FROM messages m WHERE m.session_id = s.id),
    (SELECT max(m.id) FROM messages m WHERE m.session_id = s.id)
FROM sessions s
ORDER BY s.id
