-- OpenClaw (before 2026.9): one session's events in order, every payload in event_json.
SELECT seq, event_json, NULL, NULL FROM transcript_events WHERE session_id = ?1 ORDER BY seq
