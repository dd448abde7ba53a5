-- The rows turn_index is loaded with, in the order the in-memory table declares (a session's
-- turns are adjacent, by ordinal).
SELECT * FROM turn_index ORDER BY session_id, ordinal
