-- The rows turn_index is loaded with; the in-memory table sorts them into its declared order
-- (session_id, ordinal: a session's turns are adjacent, by ordinal), src/service/directory.rs.
SELECT * FROM turn_index
