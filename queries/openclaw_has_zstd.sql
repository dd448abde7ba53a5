-- OpenClaw: whether transcript_events has the compressed payload column (2026.9 and later).
SELECT count(*) FROM pragma_table_info('transcript_events') WHERE name = 'event_zstd'
