-- Devin CLI: the `sessions` and `message_nodes` columns the live reader needs (fails to prepare
-- otherwise).
SELECT s.id, m.session_id, m.node_id, m.parent_node_id, m.chat_message, m.created_at
FROM sessions s, message_nodes m
LIMIT 0
