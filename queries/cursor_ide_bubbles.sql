-- The bubbles (messages) of one composer, `bubbleId:<composer id>:<bubble id>`: the bubble id
-- and its JSON value; the key range (`:` < `;`) uses the key's index.
SELECT substr(key, length(?1) + 11) AS bubble_id, value
  FROM cursorDiskKV
 WHERE key > 'bubbleId:' || ?1 || ':' AND key < 'bubbleId:' || ?1 || ';'
 ORDER BY key
