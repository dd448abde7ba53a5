-- Goose: one row per session with what changes when its rows change (its update time and the
-- count and last id of its messages).
SELECT s.id,
       CAST(s.updated_at AS TEXT),
       (SELECT count(*) || ':' || coalesce(max(m.id), 0) FROM messages m WHERE m.session_id = s.id)
FROM sessions s
ORDER BY s.id
