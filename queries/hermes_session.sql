-- Hermes Agent: one session's row, every column (later versions add `title`, `cwd`,
-- `git_branch`, cache and reasoning token counts and more: read by name).
SELECT * FROM sessions WHERE id = ?1
