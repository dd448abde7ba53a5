-- OpenClaw: one row per session with what changes when its events change (their count, last
-- seq and newest time).
SELECT session_id, count(*), max(seq), max(created_at)
FROM transcript_events
GROUP BY session_id
ORDER BY session_id
