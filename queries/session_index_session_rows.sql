-- The rows of session_index of the sessions $1 lists (at most 256 ids): a new generation's
-- in-memory table reads again the sessions of the hot files its commit rewrote, where the
-- buckets' base files did not change (store::commit::changed_rows, src/service/catalog.rs).
-- On `sessions` the filter is a key lookup in those sessions' buckets (src/query/keyed_scan.rs).
SELECT * FROM session_index WHERE array_has($1, session_id)
