-- open({id, sessions}): the sessions of the chain `$1` belongs to, in chain order (just `$1`
-- when it is alone in its chain). $1: session id.
SELECT
  m.session_id,
  m.chain_number
FROM sessions AS s
JOIN sessions AS m ON m.chain_id = s.chain_id OR m.session_id = s.session_id
WHERE s.session_id = $1
ORDER BY m.chain_number, m.session_id
