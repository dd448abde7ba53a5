-- search_sessions: does the turn named by within_id exist, and in which session? $1: turn id.
SELECT turn_id, session_id
FROM turns
WHERE turn_id = $1
