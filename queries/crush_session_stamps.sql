-- Crush: one row per session with what changes when its rows change (its update time, and the
-- count, latest update and total parts length of its messages: a streamed message is rewritten
-- in place, possibly within one second).
SELECT s.id,
       s.updated_at,
       (SELECT count(*) || ':' || coalesce(max(m.updated_at), 0) || ':' || coalesce(sum(length(m.parts)), 0)
        FROM messages m WHERE m.session_id = s.id)
FROM sessions s
ORDER BY s.id
