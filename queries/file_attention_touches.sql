-- file_attention: the touches of one file, newest first. A row matches when its tail is the
-- query tail or ends with it at a segment boundary, or its resolved path is the query path as
-- given (absolute) or the tail (when nothing was stripped), whatever root this machine's
-- checkouts strip from it; file_name narrows the scan first (bloom filter, sorted files).
-- $1: file name; $2: tail; $3: '/' || tail; $4: source or '' for any; $5: tool or '' for any;
-- $6: mutations only; $7, $8: time window [start, end); $9: project scope on;
-- $10: regular expression of the project's roots (matched against cwd); $11: rows to fetch;
-- $12: the absolute query path, else the tail.
SELECT
  event_id,
  session_id,
  turn_id,
  timestamp,
  source,
  root,
  path,
  tool,
  mutation,
  match_kind
FROM file_touches
WHERE file_name = $1
  AND (tail = $2 OR ends_with(tail, $3) OR resolved_path = $12)
  AND ($4 = '' OR source = $4)
  AND ($5 = '' OR tool = $5)
  AND (NOT $6 OR mutation)
  AND timestamp >= $7
  AND timestamp < $8
  AND (NOT $9 OR regexp_like(cwd, $10))
ORDER BY timestamp DESC, event_id ASC, path ASC
LIMIT $11
