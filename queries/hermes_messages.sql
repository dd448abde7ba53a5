-- Hermes Agent: one session's messages, every column, in the order Hermes replays them.
SELECT * FROM messages WHERE session_id = ?1 ORDER BY timestamp, id
