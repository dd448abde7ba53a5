-- A turn's session and ordinal by its id: the scope check of search_sessions' within_id, the
-- first step of open(turn) and the project scope of a turn id. $1: turn id. A key lookup in
-- the in-memory `turn_index` once loaded, else a read of `turns`.
SELECT turn_id, session_id, ordinal
FROM turn_index
WHERE turn_id = $1
