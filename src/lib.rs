//! esker: the local history of AI coding agents (Codex CLI, Claude Code, Gemini CLI) as
//! partitioned Parquet tables plus a tantivy index, served to agents over MCP.
//!
//! # Layout
//! Data flows ingest → indexer → store → query/search → service → mcp, cli:
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
//! - [`service`]: the service layer every front end adapts: the tools' logic (`search_sessions`,
//!   `open`, `list_sessions`, `file_attention`, `get_ingest_status`) over a warm catalog of the
//!   store, with the request lifecycle, envelopes, validation and cursors they share.
//! - [`mcp`]: the MCP server (rmcp, stdio), an adapter over [`service`]; other tool sets as
//!   profiles.
//! - [`memory`]: memory entries (seed 001): a journal folded into the `memories` table and its
//!   index at each commit, and the operations the `memory` profile serves.
//! - [`team`]: publishing the tables to object storage (`esker publish`), reading a published
//!   dataset (`esker query --data-dir URL`) and pulling it into a local store (`esker pull`).
//! - [`cli`]: the commands for people (`setup`, `search`, `show`, `resume`, `recall`,
//!   `handoff`, `sessions`, `usage`) over the service layer's own code, and the sample-store rules.
//! - [`ui`]: `esker ui`, the local web view: an embedded single-page app and a JSON API over
//!   the service layer and the CLI's functions, with live updates on each commit.
//!
//! - [`heap`]: this process's resident memory, and returning freed heap to the OS.
//! - [`resume`]: the harness's own resume command for a session (`esker resume`, `esker show`,
//!   `esker handoff --write`).
//!
//! Imports point down only: model, config, heap → ids, resume → redact → ingest → store → search, query →
//! semantic, memory → engine → indexer, team → service → mcp → cli → ui (`tests/it/layering.rs` checks it).

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
pub mod resume;
pub mod search;
pub mod semantic;
pub mod service;
pub mod store;
pub mod team;
pub mod ui;
