-- One row per normalized event. Partitioned Hive-style by the harness and the UTC month the
-- session started (all of a session's events share one partition); rows sorted by
-- (session_id, seq) inside each file.
CREATE EXTERNAL TABLE events (
  event_id VARCHAR NOT NULL,          -- event:<body>, stable across re-indexing
  session_id VARCHAR NOT NULL,        -- session:<body>
  turn_id VARCHAR NOT NULL,           -- turn:<body>
  turn_ordinal INT NOT NULL,          -- 1-based turn position within the session
  ordinal INT NOT NULL,               -- 1-based event position within the turn
  seq BIGINT NOT NULL,                -- 1-based event position within the session (file order)
  type VARCHAR NOT NULL,              -- user_input | assistant_response | reasoning | tool_call | tool_response | compaction | system | runtime | unknown
  timestamp TIMESTAMP WITH TIME ZONE NOT NULL, -- UTC; inferred when the log has no time for the record
  timestamp_inferred BOOLEAN NOT NULL, -- true when timestamp was inferred (nearest earlier time)
  terminal BOOLEAN NOT NULL,          -- true for the one event that ends a completed turn
  model VARCHAR,                      -- model that produced the event (assistant output)
  originating_model VARCHAR,          -- model in effect when the event happened
  tool_name VARCHAR,                  -- tool calls and tool responses
  tool_call_id VARCHAR,
  exit_code BIGINT,                   -- tool responses, when known
  subtype VARCHAR,                    -- harness-specific detail (final_answer, task_complete, ...)
  text VARCHAR NOT NULL,              -- full human-readable text
  payload VARCHAR,                    -- JSON of structured content (tool arguments, raw record)
  source_path VARCHAR NOT NULL,       -- the log file the event came from
  source_line BIGINT NOT NULL,        -- 1-based line (or message index) in that file
  -- Token usage of the model call the event carries (set on one event per call, null when the
  -- harness records none):
  input_tokens BIGINT,                    -- every prompt token (cache reads/writes included)
  cached_input_tokens BIGINT,             -- the part of input read from a cache
  output_tokens BIGINT,                   -- every generated token (reasoning included)
  reasoning_tokens BIGINT,                -- the part of output spent reasoning
  total_tokens BIGINT,                    -- input + output (or the harness's own total)
  source VARCHAR NOT NULL,            -- partition: codex | claude | gemini
  month VARCHAR NOT NULL              -- partition: YYYY-MM of the session start
)
STORED AS PARQUET
PARTITIONED BY (source, month)
LOCATION '{location}';
