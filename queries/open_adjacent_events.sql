-- open(event): the events just before and after an event within its turn. $1: session id
-- (prunes files); $2: turn id; $3, $4: the previous and next ordinals.
SELECT event_id, ordinal
FROM events
WHERE session_id = $1
  AND turn_id = $2
  AND ordinal IN ($3, $4)
