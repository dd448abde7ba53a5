-- open({id, sessions}): the sessions of the chain `$1` belongs to, in chain order (just `$1`
-- when it is alone in its chain). $1: session id; $2: its chain id (NULL when it has none,
-- read first by `open_chain_id.sql`). Two key lookups on `session_index` (in memory once the
-- directory is loaded): a scalar subquery in place of $2 would plan as a join, which no key
-- lookup sees, and scan every session.
SELECT
  session_id,
  chain_number
FROM session_index
WHERE session_id = $1
  OR chain_id = $2
ORDER BY chain_number, session_id
