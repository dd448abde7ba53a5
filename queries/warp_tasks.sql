-- Warp: a conversation's tasks (protobuf warp.multi_agent.v1.Task blobs), in row order.
SELECT task_id, task
FROM agent_tasks
WHERE conversation_id = ?1
ORDER BY id
