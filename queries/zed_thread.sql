-- Zed: one thread's row, every column (later Zed versions add `parent_id`, `folder_paths`,
-- `folder_paths_order`, `created_at`); the `data` blob is left out by the reader.
SELECT * FROM threads WHERE id = ?1
