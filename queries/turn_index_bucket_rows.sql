-- The rows of turn_index whose sessions are in the buckets $1 lists, as
-- session_index_bucket_rows.sql reads session_index: only those buckets' files of `turns`.
SELECT * FROM turn_index WHERE array_has($1, session_bucket(session_id))
