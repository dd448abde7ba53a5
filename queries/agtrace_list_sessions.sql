-- agtrace list_sessions (after queries/agtrace_sessions.sql): sessions newest first by start,
-- keyset-paginated on (started_at, session_id), with their first prompt (one row per session
-- even if its first turn were stored twice).
-- $3: source or '' for any; $4: project hash or '' for any; $5, $6: whether a since bound is
-- given and its value; $7, $8: the same for until; $9: whether a cursor is given; $10, $11: the
-- cursor's started_at and session id; $12: rows to fetch.
SELECT
  page.session_id,
  page.native_id,
  page.source,
  page.title,
  page.started_at,
  page.updated_at,
  page.turn_count,
  page.project_hash,
  min(turns.user_input_text) AS first_prompt
FROM (
  SELECT *
  FROM agtrace_sessions
  WHERE ($3 = '' OR source = $3)
    AND ($4 = '' OR project_hash = $4)
    AND (NOT $5 OR started_at >= $6)
    AND (NOT $7 OR started_at < $8)
    AND (NOT $9 OR started_at < $10 OR (started_at = $10 AND session_id < $11))
  ORDER BY started_at DESC, session_id DESC
  LIMIT $12
) AS page
LEFT JOIN turns ON turns.session_id = page.session_id AND turns.ordinal = 1
GROUP BY
  page.session_id,
  page.native_id,
  page.source,
  page.title,
  page.started_at,
  page.updated_at,
  page.turn_count,
  page.project_hash
ORDER BY page.started_at DESC, page.session_id DESC
