-- One value of Cursor IDE's key-value table (`composerData:<composer id>`).
SELECT value FROM cursorDiskKV WHERE key = ?1
