-- open(turn), open(event): the turns just before and after a turn. $1: session id;
-- $2, $3: the previous and next ordinals.
SELECT turn_id, ordinal
FROM turns
WHERE session_id = $1
  AND ordinal IN ($2, $3)
