-- Amazon Q Developer CLI: one conversation per directory row, known by the `conversation_id`
-- in its state (the directory when the state is not JSON), with the size of the state and its
-- directory as the stamp.
SELECT id, group_concat(stamp, ';')
FROM (
    SELECT coalesce(CASE WHEN json_valid(value) THEN json_extract(value, '$.conversation_id') END, key) AS id,
           length(value) || ':' || key AS stamp
    FROM conversations
)
GROUP BY id
ORDER BY id
