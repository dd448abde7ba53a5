-- Windsurf / Devin Desktop `acp-messages/<uuid>.db`: the session's `meta` rows (`schema_version`,
-- `info`, `message_count`, `truncated`; the set of keys is open).
SELECT key, value FROM meta ORDER BY key
