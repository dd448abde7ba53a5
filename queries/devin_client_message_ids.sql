-- Devin CLI: the client message ids of one session's user nodes
-- (`chat_message.metadata.extensions["chisel/client-message-id"]`, what Devin Desktop's prompt
-- chunks carry as `cognition.ai/clientMessageId`), to tell the Desktop's copy of a `devin-cli`
-- session for the CLI's. Only the session's nodes whose text names the key are parsed.
SELECT DISTINCT CASE WHEN json_valid(chat_message)
    THEN json_extract(chat_message, '$.metadata.extensions."chisel/client-message-id"') END
FROM message_nodes
WHERE session_id = ?1 AND chat_message LIKE '%chisel/client-message-id%'
