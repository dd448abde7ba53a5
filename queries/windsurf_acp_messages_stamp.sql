-- Windsurf / Devin Desktop `acp-messages/<uuid>.db` (one session): what changes when the window
-- appends a message or rewrites one in place (the rows, the newest position, their size).
SELECT count(*), max(position), sum(length(payload)) FROM messages
