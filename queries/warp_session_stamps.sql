-- Warp: every conversation (a row of agent_conversations, or the prompts of ai_queries alone for
-- one older than that table or evicted from it), with what changes when Warp saves it again:
-- the conversation row's time and size, its tasks' count, sizes and newest time, its queries'
-- count, newest start and statuses.
WITH ids AS (
    SELECT conversation_id AS id FROM agent_conversations
    UNION
    SELECT conversation_id FROM ai_queries
)
SELECT
    ids.id,
    c.last_modified_at,
    length(c.conversation_data),
    (SELECT count(*) FROM agent_tasks t WHERE t.conversation_id = ids.id),
    (SELECT sum(length(t.task)) FROM agent_tasks t WHERE t.conversation_id = ids.id),
    (SELECT max(t.last_modified_at) FROM agent_tasks t WHERE t.conversation_id = ids.id),
    (SELECT count(*) FROM ai_queries q WHERE q.conversation_id = ids.id),
    (SELECT max(q.start_ts) FROM ai_queries q WHERE q.conversation_id = ids.id),
    (SELECT group_concat(q.output_status) FROM ai_queries q WHERE q.conversation_id = ids.id)
FROM ids
LEFT JOIN agent_conversations c ON c.conversation_id = ids.id
ORDER BY ids.id
