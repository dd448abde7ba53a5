//! `esker serve`: the MCP server (stdio) with `search_sessions`, `open` and `list_sessions`,
//! implementing the Moraine MCP search interface contract.
//!
//! Layout, request order:
//! - [`server`]: the rmcp `ServerHandler` (server info, instructions, tool routing).
//! - [`tools`]: advertised tool definitions (input/output schemas, annotations).
//! - [`handler`]: the shared lifecycle: validate, run under a deadline, wrap in an envelope.
//! - [`validate`], [`cursor`]: strict argument validation, typed ids, list cursors.
//! - [`search_sessions`], [`open`], [`list_sessions`]: one module per tool.
//! - [`catalog`]: warm DataFusion context + tantivy reader per store generation, named
//!   queries from `queries/*.sql`; [`rows`]: typed access to query results.
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
pub mod handler;
pub mod list_sessions;
pub mod open;
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

use crate::mcp::catalog::Catalog;
use crate::mcp::server::EskerServer;

/// Serves the store at `data_dir` over stdio until the client disconnects.
pub async fn serve_stdio(data_dir: PathBuf) -> anyhow::Result<()> {
    let catalog = Catalog::open(&data_dir)
        .with_context(|| format!("cannot open the esker store at {}", data_dir.display()))?;
    // Open the readers now so the first tool call is already on the warm path.
    catalog
        .snapshot()
        .await
        .context("cannot open the current store generation")?;
    tracing::info!(data_dir = %data_dir.display(), "esker MCP server listening on stdio");
    let stdio = stdio::guarded_stdio();
    let service = EskerServer::new(catalog)
        .serve(stdio.transport)
        .await
        .context("MCP initialization failed")?;
    service.waiting().await.context("MCP server task failed")?;
    // rmcp has closed its side: let the writer flush the last replies.
    let _ = stdio.writer.await;
    Ok(())
}
