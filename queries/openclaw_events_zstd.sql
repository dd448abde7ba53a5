-- OpenClaw (2026.9 and later): one session's events in order; a large one is a zstd frame in
-- event_zstd with its UTF-8 length, event_json NULL.
SELECT seq, event_json, event_zstd, event_utf8_bytes
FROM transcript_events
WHERE session_id = ?1
ORDER BY seq
