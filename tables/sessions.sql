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
  started_at TIMESTAMP WITH TIME ZONE,
  updated_at TIMESTAMP WITH TIME ZONE,
  completed BOOLEAN NOT NULL,             -- the last turn is completed
  turn_count INT NOT NULL,
  event_count INT NOT NULL,
  first_turn_id VARCHAR,
  last_turn_id VARCHAR,
  parent_session_id VARCHAR,              -- sub-agents: the session that spawned them
  forked_from_session_id VARCHAR,         -- forks and resumes: the session they continue
  previous_session_id VARCHAR,            -- continuation chain, ordered by started_at
  next_session_id VARCHAR,
  source_path VARCHAR NOT NULL
)
STORED AS PARQUET
LOCATION '{location}';
