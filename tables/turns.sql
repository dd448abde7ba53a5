-- One row per turn: a user-driven interaction within a session, summarized for open().
CREATE EXTERNAL TABLE turns (
  turn_id VARCHAR NOT NULL,
  session_id VARCHAR NOT NULL,
  source VARCHAR NOT NULL,
  ordinal INT NOT NULL,                   -- 1-based within the session
  completed BOOLEAN NOT NULL,             -- the turn has a terminal event
  terminal_event_id VARCHAR,
  event_count INT NOT NULL,
  started_at TIMESTAMP WITH TIME ZONE NOT NULL,
  updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
  -- Token usage summed over the turn's events (null when none records usage):
  input_tokens BIGINT,                    -- every prompt token (cache reads/writes included)
  cached_input_tokens BIGINT,             -- the part of input read from a cache
  output_tokens BIGINT,                   -- every generated token (reasoning included)
  reasoning_tokens BIGINT,                -- the part of output spent reasoning
  total_tokens BIGINT,                    -- input + output (or the harness's own total)
  first_event_id VARCHAR NOT NULL,
  last_event_id VARCHAR NOT NULL,
  user_input_event_id VARCHAR,
  user_input_text VARCHAR,                -- first ~200 chars
  user_input_truncated BOOLEAN,
  final_response_event_id VARCHAR,
  final_response_text VARCHAR,            -- first ~200 chars
  final_response_truncated BOOLEAN,
  tools_called VARCHAR NOT NULL,          -- JSON array, unique names in first-seen order
  event_types VARCHAR NOT NULL            -- JSON array, unique types in first-seen order
)
STORED AS PARQUET
LOCATION '{location}';
