-- esker usage: token sums of the events that carry usage, grouped by a key, the model (prices
-- apply per model) and the session (sessions are counted once per key). $1: the key (day | week | month | session | model | source |
-- project); $2: whether a start is given, $3 the start; $4: whether an end is given, $5 the
-- end (events with timestamp in [start, end)).
SELECT
  CASE $1
    WHEN 'day' THEN coalesce(to_char(e.timestamp, '%Y-%m-%d'), '(no time)')
    WHEN 'week' THEN coalesce(to_char(date_trunc('week', e.timestamp), '%Y-%m-%d'), '(no time)')
    WHEN 'month' THEN coalesce(to_char(e.timestamp, '%Y-%m'), '(no time)')
    WHEN 'session' THEN e.session_id
    WHEN 'model' THEN coalesce(e.model, e.originating_model, '(unknown)')
    WHEN 'source' THEN e.source
    ELSE coalesce(s.project, '(none)')
  END AS key,
  coalesce(e.model, e.originating_model, '(unknown)') AS model,
  e.session_id,
  max(s.title) AS title,
  sum(e.input_tokens) AS input_tokens,
  sum(e.cached_input_tokens) AS cached_input_tokens,
  sum(e.output_tokens) AS output_tokens,
  sum(e.reasoning_tokens) AS reasoning_tokens,
  sum(e.total_tokens) AS total_tokens
FROM events AS e
JOIN sessions AS s ON s.session_id = e.session_id
WHERE coalesce(e.input_tokens, e.cached_input_tokens, e.output_tokens, e.reasoning_tokens, e.total_tokens) IS NOT NULL
  AND (NOT $2 OR e.timestamp >= $3)
  AND (NOT $4 OR e.timestamp < $5)
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3
