//! `esker serve`: the MCP server (stdio, or streamable HTTP with `--http`). Its default profile serves `search_sessions`, `open`,
//! `list_sessions` and `file_attention`, implementing the Moraine MCP search interface
//! contract; other profiles
//! ([`profiles`]) serve other contracts over the same service layer ([`crate::service`]).
//!
//! Layout, request order:
//! - [`server`]: the rmcp `ServerHandler` (server info, instructions, tool routing).
//! - [`profiles`]: the tool sets `--profile` chooses (`moraine`, `agtrace`, `relay`, `memory`),
//!   each a thin adapter over [`crate::service`] (the tools' logic, catalog, envelopes,
//!   validation and cursors every front end shares).
//! - [`tools`]: advertised tool definitions (input/output schemas, annotations).
//! - [`stdio`]: the transport, with a guard that answers lines rmcp cannot parse.
//! - [`http`]: `--http ADDR`, the team server: bearer tokens scoped to projects, per-token
//!   limits, request logs (issue #54).
//!
//! Over stdio, stdout carries the protocol; all logs go to stderr.

pub mod http;
pub mod profiles;
pub mod server;
pub mod stdio;
pub mod tools;

use std::path::PathBuf;

use anyhow::Context;
use rmcp::ServiceExt;

use crate::indexer::status::IngestMonitor;
use crate::mcp::profiles::ProfileSet;
use crate::mcp::server::EskerServer;
use crate::service::catalog::Catalog;
use crate::service::project_scope::ProjectScope;

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
