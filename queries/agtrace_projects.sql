-- agtrace get_project_info: sessions grouped by project root (cwd, else the log file), most
-- recently active first. hash is the SHA-256 hex of the root, as list_sessions filters on it.
-- $1, $2: whether the server is project-scoped and the pattern cwd must match.
SELECT
  encode(sha256(coalesce(cwd, source_path)), 'hex') AS hash,
  coalesce(cwd, source_path) AS root_path,
  count(*) AS session_count,
  max(updated_at) AS last_activity
FROM sessions
WHERE NOT $1 OR regexp_like(cwd, $2)
GROUP BY coalesce(cwd, source_path)
ORDER BY last_activity DESC NULLS LAST, root_path
