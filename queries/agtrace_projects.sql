-- agtrace get_project_info (after queries/agtrace_sessions.sql): the sessions grouped by
-- project, most recently active first; session_count is the number of sessions
-- list_sessions(project_hash) lists.
SELECT
  project_hash AS hash,
  root_path,
  count(*) AS session_count,
  max(updated_at) AS last_activity
FROM agtrace_sessions
GROUP BY project_hash, root_path
ORDER BY last_activity DESC NULLS LAST, root_path
