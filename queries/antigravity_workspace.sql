-- Antigravity trajectory: the protobuf blob naming the workspace.
SELECT data FROM trajectory_metadata_blob LIMIT 1
