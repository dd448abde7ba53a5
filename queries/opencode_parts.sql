-- OpenCode: one session's parts (their JSON without ids), grouped by message in order.
SELECT message_id, id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id
