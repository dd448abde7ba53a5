//! MCP latency benchmark.
fn main() {}
