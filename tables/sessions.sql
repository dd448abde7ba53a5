-- One row per session: one agent conversation or trace (sub-agents are their own sessions).
CREATE EXTERNAL TABLE sessions (
  session_id VARCHAR NOT NULL,
  source VARCHAR NOT NULL,                -- codex | claude | gemini
  native_id VARCHAR NOT NULL,             -- the harness's own session id
  title VARCHAR NOT NULL,                 -- never empty
  session_summary VARCHAR,
  session_slug VARCHAR,
  mode VARCHAR NOT NULL,                  -- web_search | mcp_internal | tool_calling | chat
  cwd VARCHAR,
  project VARCHAR,                        -- last path component of cwd, or the harness project dir
  git_branch VARCHAR,
  model VARCHAR,
  harness_version VARCHAR,
  agent_name VARCHAR,                     -- sub-agent name or role
  started_at TIMESTAMP WITH TIME ZONE NOT NULL,
  updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
  completed BOOLEAN NOT NULL,             -- the last turn is completed
  turn_count INT NOT NULL,
  event_count INT NOT NULL,
  -- Token usage summed over the session's events (null when none records usage):
  input_tokens BIGINT,                    -- every prompt token (cache reads/writes included)
  cached_input_tokens BIGINT,             -- the part of input read from a cache
  output_tokens BIGINT,                   -- every generated token (reasoning included)
  reasoning_tokens BIGINT,                -- the part of output spent reasoning
  total_tokens BIGINT,                    -- input + output (or the harness's own total)
  models VARCHAR NOT NULL,                -- JSON array of the distinct models used, first-use order
  first_turn_id VARCHAR,
  last_turn_id VARCHAR,
  parent_session_id VARCHAR,              -- sub-agents: the session that spawned them
  forked_from_session_id VARCHAR,         -- forks and resumes: the session they continue
  previous_session_id VARCHAR,            -- continuation chain, ordered by started_at
  next_session_id VARCHAR,
  -- The continuation chain the session belongs to (null for a session alone in its chain):
  chain_id VARCHAR,                       -- the session id of the chain's first session
  chain_slug VARCHAR,                     -- the chain's slug (Claude `slug`), null for slug-less chains
  chain_number INT,                       -- 1-based position in the chain, by started_at
  chain_length INT,                       -- sessions in the chain
  source_path VARCHAR NOT NULL
)
STORED AS PARQUET
LOCATION '{location}';
