-- Antigravity trajectory: which product wrote it (17 the CLI, 1 the 2.0 app).
SELECT source FROM trajectory_meta LIMIT 1
