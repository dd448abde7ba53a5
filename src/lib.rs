//! esker: the local history of AI coding agents (Codex CLI, Claude Code, Gemini CLI) as
//! partitioned Parquet tables plus a tantivy index, served to agents over MCP.
//!
//! # Layout
//! Data flows ingest → indexer → store → query/search → mcp:
//! - [`ingest`]: recognises a log file's format from its content and parses each format (one
//!   file per format, pure functions) into the model's sessions and events.
//! - [`store`]: immutable generations of Parquet tables (`tables/*.sql`) and the search index,
//!   committed atomically; checkpoints for incremental indexing.
//! - [`engine`]: what needs the store, the search index and the table declarations together:
//!   opening a store and driving one commit (tables, index, memory entries).
//! - [`indexer`]: an indexing pass (discovery, checkpoints, redaction, sessions, turns and
//!   events with stable ids, batched commits) and the watcher that runs one on each change.
//! - [`search`]: the tantivy schema, writer and scoped BM25 queries.
//! - [`semantic`]: the semantic search leg (static embeddings beside the tables, fused with
//!   BM25; off unless asked for).
//! - [`query`]: DataFusion contexts over a snapshot, read-only ad-hoc SQL.
//! - [`mcp`]: the MCP server (`search_sessions`, `open`, `list_sessions`, `file_attention`; other tool sets as
//!   profiles).
//! - [`memory`]: memory entries (seed 001): a journal folded into the `memories` table and its
//!   index at each commit, and the operations the `memory` profile serves.
//! - [`team`]: publishing the tables to object storage (`esker publish`), reading a published
//!   dataset (`esker query --data-dir URL`) and pulling it into a local store (`esker pull`).
//! - [`cli`]: the commands for people (`setup`, `search`, `show`, `sessions`, `usage`) over
//!   the MCP tools' own code, and the sample-store rules.
//! - [`ui`]: `esker ui`, the local web view: an embedded single-page app and a JSON API over
//!   the MCP tools and the CLI's functions, with live updates on each commit.
//!
//! - [`heap`]: this process's resident memory, and returning freed heap to the OS.
//!
//! Imports point down only: model, config, heap → ids → redact → ingest → store → search, query →
//! semantic, memory → engine → indexer, team → mcp → cli → ui (`tests/it/layering.rs` checks it).

pub mod cli;
pub mod config;
pub mod engine;
pub mod heap;
pub mod ids;
pub mod indexer;
pub mod ingest;
pub mod mcp;
pub mod memory;
pub mod model;
pub mod query;
pub mod redact;
pub mod search;
pub mod semantic;
pub mod store;
pub mod team;
pub mod ui;
