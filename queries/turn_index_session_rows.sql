-- The rows of turn_index of the sessions $1 lists, as session_index_session_rows.sql reads
-- session_index.
SELECT * FROM turn_index WHERE array_has($1, session_id)
