-- OpenCode: one row per session with what changes when any of its rows changes (the
-- session's update time, and the count and latest update of its messages and parts).
SELECT s.id,
       s.time_updated,
       (SELECT count(*) || ':' || coalesce(max(m.time_updated), 0) FROM message m WHERE m.session_id = s.id),
       (SELECT count(*) || ':' || coalesce(max(p.time_updated), 0) FROM part p WHERE p.session_id = s.id)
FROM session s
ORDER BY s.id
