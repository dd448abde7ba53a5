-- open(event): the events just before and after an event in its session (the caller keeps
-- those of the same turn: a turn's events are consecutive in seq). $1: source, $2: month,
-- $3: session id (as open_event_located.sql); $4, $5: the previous and next seq.
SELECT event_id, turn_id, seq
FROM events
WHERE source = $1
  AND month = $2
  AND session_id = $3
  AND seq IN ($4, $5)
