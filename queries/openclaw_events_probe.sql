-- OpenClaw: the transcript_events table has the columns the reader needs (fails to prepare
-- otherwise).
SELECT session_id, seq, event_json FROM transcript_events LIMIT 0
