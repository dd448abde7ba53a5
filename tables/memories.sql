-- One row per memory entry: a durable note an agent saved (`save_memory`) or imported from a
-- project document (`ingest_docs`). Entries have no source log: the memory journal
-- (`<data dir>/memory/journal.jsonl`) is their source, folded into this table at each commit.
CREATE EXTERNAL TABLE memories (
  id VARCHAR NOT NULL,                    -- UUID v4
  title VARCHAR NOT NULL,                 -- given, else the text's first line (at most 120 chars)
  body VARCHAR NOT NULL,                  -- the saved text, trimmed
  entry_type VARCHAR NOT NULL,            -- note (default), decision, ingestion, ...
  project VARCHAR NOT NULL,
  session_id VARCHAR,                     -- the session the entry came from, when given
  source_ref VARCHAR,                     -- where it came from (a path for ingested documents)
  content_hash VARCHAR,                   -- SHA-256 hex of the body (ingested documents: dedupe key)
  metadata VARCHAR NOT NULL,              -- JSON object, `{}` when none was given
  created_at TIMESTAMP WITH TIME ZONE NOT NULL,
  journal_offset BIGINT NOT NULL          -- byte offset of the entry in the journal (ties of created_at)
)
STORED AS PARQUET
LOCATION '{location}';
