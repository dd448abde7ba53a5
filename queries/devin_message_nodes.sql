-- Devin CLI: every message node of one session (its forest: the conversation, abandoned
-- branches, copies, sub-agent chains), every column (`metadata` is a later addition), by node.
SELECT * FROM message_nodes WHERE session_id = ?1 ORDER BY node_id
