-- agtrace list_sessions: sessions newest first by start, keyset-paginated on
-- (started_at, session_id), with their first prompt. project_hash is the SHA-256 hex of the
-- project root (cwd, else the log file for sessions that record none).
-- $1: source or '' for any; $2: project hash or '' for any; $3, $4: whether a since bound is
-- given and its value; $5, $6: the same for until; $7: whether a cursor is given; $8, $9: the
-- cursor's started_at and session id; $10: rows to fetch; $11, $12: whether the server is
-- project-scoped and the pattern cwd must match.
WITH page AS (
  SELECT
    session_id,
    native_id,
    source,
    title,
    started_at,
    updated_at,
    turn_count,
    encode(sha256(coalesce(cwd, source_path)), 'hex') AS project_hash
  FROM sessions
  WHERE ($1 = '' OR source = $1)
    AND ($2 = '' OR encode(sha256(coalesce(cwd, source_path)), 'hex') = $2)
    AND (NOT $3 OR started_at >= $4)
    AND (NOT $5 OR started_at < $6)
    AND (NOT $7 OR started_at < $8 OR (started_at = $8 AND session_id < $9))
    AND (NOT $11 OR regexp_like(cwd, $12))
  ORDER BY started_at DESC, session_id DESC
  LIMIT $10
)
SELECT
  page.session_id,
  page.native_id,
  page.source,
  page.title,
  page.started_at,
  page.updated_at,
  page.turn_count,
  page.project_hash,
  turns.user_input_text AS first_prompt
FROM page
LEFT JOIN turns ON turns.session_id = page.session_id AND turns.ordinal = 1
ORDER BY page.started_at DESC, page.session_id DESC
