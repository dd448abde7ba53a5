-- Warp: a conversation's metadata (AgentConversationData as JSON).
SELECT conversation_data
FROM agent_conversations
WHERE conversation_id = ?1
