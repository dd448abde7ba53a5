-- open(event), open(turn): a turn and the turns just before and after it, each with its
-- session's title and source. $1: session id; $2, $3, $4: the ordinals before, of and after
-- the turn. Key lookups by session in the in-memory `turn_index` and `session_index` once
-- loaded (a session's turns are adjacent there, in ordinal order), else reads of `turns` and
-- `sessions` pinned to the session's bucket.
SELECT
  t.turn_id,
  t.ordinal,
  t.completed,
  s.title,
  s.source
FROM turn_index AS t
JOIN session_index AS s ON s.session_id = t.session_id
WHERE t.session_id = $1
  AND s.session_id = $1
  AND t.ordinal IN ($2, $3, $4)
