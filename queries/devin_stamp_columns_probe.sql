-- Devin CLI: the `sessions` columns `devin_session_stamps.sql` reads (fails to prepare on a
-- sessions.db older than them).
SELECT last_activity_at, main_chain_id, title, hidden FROM sessions LIMIT 0
