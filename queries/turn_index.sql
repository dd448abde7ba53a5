-- turn_index: the hot columns of `turns` (what a search hit or an open(event) shows of a turn,
-- and each session's turn order). Served from memory once a generation's rows are loaded
-- (src/service/directory.rs); until then, and on the plain answer path, this view over Parquet.
SELECT
  turn_id,
  session_id,
  ordinal,
  completed,
  event_count
FROM turns
