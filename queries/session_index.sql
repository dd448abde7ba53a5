-- session_index: the hot columns of `sessions` (what a list_sessions page, a search hit or an
-- open(event) shows of a session). Served from memory once a generation's rows are loaded
-- (src/service/directory.rs); until then, and on the plain answer path, this view over Parquet.
-- cwd: what `esker serve --project-only` scopes sessions by (src/service/project_scope.rs);
-- project and model: what the terminal and recall show of a hit's session
-- (queries/cli_session_facts.sql).
SELECT
  session_id,
  title,
  source,
  started_at,
  updated_at,
  completed,
  turn_count,
  event_count,
  input_tokens,
  cached_input_tokens,
  output_tokens,
  reasoning_tokens,
  total_tokens,
  mode,
  session_slug,
  chain_id,
  chain_slug,
  chain_number,
  chain_length,
  parent_session_id,
  session_summary,
  cwd,
  project,
  model
FROM sessions
