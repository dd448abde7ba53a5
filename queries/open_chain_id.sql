-- open({id, sessions}): the chain id of session `$1` (no row when the session is unknown, a
-- NULL when it is alone in its chain). Feeds `open_chain_members.sql`.
SELECT chain_id FROM session_index WHERE session_id = $1
