-- Antigravity trajectory: one protobuf blob per model call, in call order.
SELECT data FROM gen_metadata ORDER BY idx
