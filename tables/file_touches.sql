-- One row per file a tool call touched (an edit, a write, a read, a patch, a shell command naming
-- it), for file_attention. Split into 16 files by a hash of the session id like `turns`; rows
-- sorted by (file_name, tail) inside each file, with a bloom filter on file_name.
CREATE EXTERNAL TABLE file_touches (
  event_id VARCHAR NOT NULL,              -- the tool_call event (events.event_id)
  session_id VARCHAR NOT NULL,
  turn_id VARCHAR NOT NULL,
  timestamp TIMESTAMP WITH TIME ZONE NOT NULL, -- the event's time (UTC)
  source VARCHAR NOT NULL,                -- codex | claude | gemini
  cwd VARCHAR,                            -- working directory of the call (else of the session)
  root VARCHAR,                           -- worktree root tail is relative to; null when the path is under none
  path VARCHAR NOT NULL,                  -- the path as the call wrote it
  resolved_path VARCHAR NOT NULL,         -- path resolved against the call's directory, normalized
  tail VARCHAR NOT NULL,                  -- resolved_path relative to root (resolved_path when root is null)
  file_name VARCHAR NOT NULL,             -- last segment of tail
  tool VARCHAR NOT NULL,                  -- tool name (Edit, apply_patch, exec_command, ...)
  mutation BOOLEAN NOT NULL,              -- the call changed the file (edit/write/patch/delete, sed -i, rm, >, ...)
  match_kind VARCHAR NOT NULL             -- argument | patch | shell: where the path was found
)
STORED AS PARQUET
LOCATION '{location}';
