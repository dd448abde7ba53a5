//! The service layer every front end adapts: the tools' logic (`search_sessions`, `open`,
//! `list_sessions`, `file_attention`, `get_ingest_status`, implementing the Moraine MCP search
//! interface contract) over a warm view of the store, with the request lifecycle, envelopes,
//! validation and cursors they share. [`crate::mcp`] (the rmcp server and its profiles) and
//! [`crate::cli`] are thin adapters over it; the web view will be another.
//!
//! Layout, request order:
//! - [`handler`]: the shared lifecycle: validate, run under a deadline, wrap in an envelope.
//! - [`validate`], [`cursor`]: strict argument validation, typed ids, list cursors.
//! - [`search_sessions`], [`open`], [`list_sessions`], [`file_attention`]: one module per
//!   tool; [`ingest_status`]: `get_ingest_status` and the `coverage` object; [`origin`]:
//!   Moraine's harness names of esker's sources; [`chain`]: continuation chains.
//! - [`project_scope`]: `--project-only`, the launch project every tool is limited to (held by
//!   the [`catalog`], applied to its searches and by each tool's SQL and id checks).
//! - [`catalog`]: warm DataFusion context + tantivy reader per store generation, named
//!   queries from `queries/*.sql`; [`rows`]: typed access to query results; [`directory`],
//!   [`keyed_table`]: the `session_index` / `turn_index` tables, in memory once loaded.
//! - [`envelope`], [`text`], [`usage`]: response envelopes, errors, SLA; timestamps, snippets,
//!   scores; token usage objects.

pub mod bucketed_table;
pub mod catalog;
pub mod chain;
pub mod cursor;
pub mod directory;
pub mod envelope;
pub mod file_attention;
pub mod handler;
pub mod ingest_status;
pub mod keyed_table;
pub mod list_sessions;
pub mod open;
pub mod origin;
pub mod project_scope;
pub mod rows;
pub mod search_sessions;
pub mod text;
pub mod usage;
pub mod validate;
