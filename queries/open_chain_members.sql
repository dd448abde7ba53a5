-- open({id, sessions}): the sessions of the chain `$1` belongs to, in chain order (just `$1`
-- when it is alone in its chain). $1: session id. Read from `session_index` (in memory once
-- the directory is loaded): the chain is found by its id, not by joining every session with
-- every other (an OR join is a nested loop over all sessions: ~30 ms at 97k sessions).
SELECT
  session_id,
  chain_number
FROM session_index
WHERE session_id = $1
  OR chain_id = (SELECT chain_id FROM session_index WHERE session_id = $1)
ORDER BY chain_number, session_id
