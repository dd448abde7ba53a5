//! `esker serve`: the MCP server (stdio). Its default profile serves `search_sessions`, `open`,
//! `list_sessions` and `file_attention`, implementing the Moraine MCP search interface
//! contract; other profiles
//! ([`profiles`]) serve other contracts over the same service layer.
//!
//! Layout, request order:
//! - [`server`]: the rmcp `ServerHandler` (server info, instructions, tool routing).
//! - [`profiles`]: the tool sets `--profile` chooses (`moraine`, `agtrace`, `relay`), each a thin
//!   adapter over the modules below.
//! - [`tools`]: advertised tool definitions (input/output schemas, annotations).
//! - [`handler`]: the shared lifecycle: validate, run under a deadline, wrap in an envelope.
//! - [`validate`], [`cursor`]: strict argument validation, typed ids, list cursors.
//! - [`search_sessions`], [`open`], [`list_sessions`], [`file_attention`]: one module per
//!   tool; [`harness`]: Moraine's harness names of esker's sources.
//! - [`project_scope`]: `--project-only`, the launch project every tool is limited to (held by
//!   the [`catalog`], applied to its searches and by each tool's SQL and id checks).
//! - [`catalog`]: warm DataFusion context + tantivy reader per store generation, named
//!   queries from `queries/*.sql`; [`rows`]: typed access to query results; [`directory`],
//!   [`keyed_table`]: the `session_index` / `turn_index` tables, in memory once loaded.
//! - [`envelope`], [`text`], [`usage`]: response envelopes, errors, SLA; timestamps, snippets,
//!   scores; token usage objects.
//! - [`stdio`]: the transport, with a guard that answers lines rmcp cannot parse.
//!
//! stdout carries the protocol; all logs go to stderr.

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
pub mod profiles;
pub mod project_scope;
pub mod rows;
pub mod search_sessions;
pub mod server;
pub mod stdio;
pub mod text;
pub mod tools;
pub mod usage;
pub mod validate;

use std::path::PathBuf;

use anyhow::Context;
use rmcp::ServiceExt;

use crate::indexer::status::IngestMonitor;
use crate::mcp::catalog::Catalog;
use crate::mcp::profiles::ProfileSet;
use crate::mcp::project_scope::ProjectScope;
use crate::mcp::server::EskerServer;

/// Serves the store at `data_dir` over stdio with `profiles` until the client disconnects.
/// `monitor` follows the indexer that keeps the store fresh (external when another process does);
/// `semantic` is the semantic search leg, when it is on and has a model; `scope` limits every
/// answer to one project (`--project-only`).
pub async fn serve_stdio(
    data_dir: PathBuf,
    profiles: ProfileSet,
    monitor: IngestMonitor,
    semantic: Option<std::sync::Arc<crate::semantic::Leg>>,
    scope: Option<ProjectScope>,
) -> anyhow::Result<()> {
    let catalog = Catalog::open(&data_dir)
        .with_context(|| format!("cannot open the esker store at {}", data_dir.display()))?
        .with_ingest_monitor(monitor)
        .with_semantic_leg(semantic)
        .with_project_scope(scope);
    // Open the readers now so the first tool call is already on the warm path.
    catalog
        .snapshot()
        .await
        .context("cannot open the current store generation")?;
    tracing::info!(data_dir = %data_dir.display(), profiles = ?profiles, "esker MCP server listening on stdio");
    let stdio = stdio::guarded_stdio();
    let service = EskerServer::with_profiles(catalog, profiles)
        .serve(stdio.transport)
        .await
        .context("MCP initialization failed")?;
    service.waiting().await.context("MCP server task failed")?;
    // rmcp has closed its side: let the writer flush the last replies.
    let _ = stdio.writer.await;
    Ok(())
}
