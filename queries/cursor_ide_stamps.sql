-- Every composer of Cursor IDE's global store with what changes when any of its rows change:
-- its composerData row's rowid and size, then its bubbles' count, newest rowid and total size.
-- Cursor's key is UNIQUE ON CONFLICT REPLACE, so a rewritten row gets a new rowid; ranges on
-- the key (`:` < `;`) use its index, and octet_length reads no value.
SELECT substr(composer.key, 14) AS composer_id,
       composer.rowid,
       octet_length(composer.value),
       (SELECT count(*) || ':' || ifnull(max(bubble.rowid), '') || ':'
               || ifnull(sum(octet_length(bubble.value)), '')
          FROM cursorDiskKV AS bubble
         WHERE bubble.key > 'bubbleId:' || substr(composer.key, 14) || ':'
           AND bubble.key < 'bubbleId:' || substr(composer.key, 14) || ';') AS bubbles
  FROM cursorDiskKV AS composer
 WHERE composer.key > 'composerData:' AND composer.key < 'composerData;'
 ORDER BY composer.key
