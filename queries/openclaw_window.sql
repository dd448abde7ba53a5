-- OpenClaw: one session's window row, every column (its columns vary by version).
SELECT * FROM session_windows WHERE session_id = ?1
