-- One VS Code storage item of a Cursor `state.vscdb` (`composer.composerHeaders` in the global
-- store, `composer.composerData` in a workspace's); nothing else of ItemTable is read (it also
-- holds Cursor's auth tokens).
SELECT value FROM ItemTable WHERE key = ?1
