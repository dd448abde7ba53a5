-- OpenCode: one session's messages (their JSON without ids) in creation order.
SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id
