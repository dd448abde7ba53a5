-- The rows session_index is loaded with, in the order the in-memory table declares (so
-- list_sessions_desc.sql reads them in order and stops at its LIMIT).
SELECT * FROM session_index ORDER BY updated_at DESC, session_id DESC
