-- agtrace profile: the one definition of the sessions list_sessions lists and get_project_info
-- counts, each with its project (issue #48: the two disagreed). Not a query on its own: the
-- prefix of queries/agtrace_list_sessions.sql and queries/agtrace_projects.sql (joined with
-- concat! where they are named). project_hash is the SHA-256 hex of the project root: the
-- session's cwd, else its log file (AgTrace hashes the log path of sessions with no project).
-- $1, $2: whether the server is project-scoped and its session set's name (in_session_set).
WITH agtrace_sessions AS (
  SELECT
    session_id,
    native_id,
    source,
    title,
    started_at,
    updated_at,
    turn_count,
    coalesce(cwd, source_path) AS root_path,
    encode(sha256(coalesce(cwd, source_path)), 'hex') AS project_hash
  FROM sessions
  WHERE NOT $1 OR in_session_set(session_id, $2)
)
