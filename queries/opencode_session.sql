-- OpenCode: one session's info, shaped like the legacy session JSON.
SELECT json_object(
         'id', id, 'title', title, 'directory', directory, 'version', version,
         'parentID', parent_id,
         'time', json_object('created', time_created, 'updated', time_updated))
FROM session
WHERE id = ?1
