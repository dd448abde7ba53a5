-- The chat's metadata: hex-encoded JSON {agentId, latestRootBlobId, name, mode, createdAt, lastUsedModel}.
SELECT value FROM meta WHERE key = '0'
