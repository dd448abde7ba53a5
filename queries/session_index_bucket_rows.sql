-- The rows of session_index whose sessions are in the buckets $1 lists (a list of bucket
-- numbers, store::commit::turn_bucket): a new generation's in-memory table reads the buckets
-- its commit rewrote and carries the previous generation's rows of the others
-- (src/service/directory.rs). On `sessions` the filter opens only those buckets' files
-- (src/query/keyed_scan.rs).
SELECT * FROM session_index WHERE array_has($1, session_bucket(session_id))
