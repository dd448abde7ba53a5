-- One content-addressed blob of a cursor-agent chat: a JSON message or a protobuf link node.
SELECT data FROM blobs WHERE id = ?1
