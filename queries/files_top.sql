-- The files agents touched most: one row per project-relative tail (a file unified across
-- worktrees, as file_attention matches it; an absolute path when no root was known), by the
-- sessions that touched it, then its touches; changes count the mutating touches.
-- $1: rows to return.
SELECT
  tail,
  count(DISTINCT session_id) AS sessions,
  count(*) AS touches,
  sum(CASE WHEN mutation THEN 1 ELSE 0 END) AS changes,
  max(timestamp) AS last_touch
FROM file_touches
GROUP BY tail
ORDER BY sessions DESC, touches DESC, tail ASC
LIMIT $1
