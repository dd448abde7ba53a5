-- The rows session_index is loaded with; the in-memory table sorts them into its declared
-- order (updated_at DESC, session_id DESC: list_sessions_desc.sql reads them in order and
-- stops at its LIMIT), src/service/directory.rs.
SELECT * FROM session_index
