-- Devin CLI (schema 17): the head of each sub-agent chain of one session, by agent id.
SELECT agent_id, chain_node_id FROM subagent_heads WHERE session_id = ?1 ORDER BY agent_id
