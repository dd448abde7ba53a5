//! The `memory` profile: codex-mem's six tools (seed 001) — `save_memory`, `search`,
//! `timeline`, `get_entries`, `ingest_docs`, `retention_dry_run` — over esker's memory
//! entries ([`crate::memory`]). Answers are the seed's objects as `structuredContent` (and as
//! JSON text); failures are `{error:{code, message, details}}` with `isError: true`.
//!
//! Layout: [`tools`] (advertised definitions), [`args`] (arguments as typed requests); the
//! operations themselves are [`crate::memory::service`], shared with `esker memory`. The
//! service opens on the first call, with a background folder that commits saved entries
//! into the store when the writer lock is free.

pub mod args;
pub mod tools;

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use crate::mcp::profiles::{Profile, ReplyFuture, ServeSettings};
use crate::memory::policy::Policy;
use crate::memory::service::{MemoryService, MemorySettings};
use crate::memory::{ErrorCode, MemoryError, folder};
use crate::service::catalog::Catalog;
use crate::service::envelope::ToolReply;
use crate::service::validate::Arguments;

/// The memory profile; its service opens on the first call (it needs the served store).
pub struct MemoryProfile {
    settings: MemorySettings,
    policy: Policy,
    service: tokio::sync::OnceCell<Arc<MemoryService>>,
}

impl MemoryProfile {
    pub fn new(settings: &ServeSettings) -> MemoryProfile {
        MemoryProfile {
            settings: settings.memory.clone(),
            policy: Policy::new(Arc::clone(&settings.redactor)),
            service: tokio::sync::OnceCell::new(),
        }
    }

    async fn service(&self, catalog: &Catalog) -> Result<Arc<MemoryService>, MemoryError> {
        let service = self
            .service
            .get_or_try_init(|| async {
                let store = catalog.store().clone();
                let folder = folder::spawn(store.clone()).map_err(|error| {
                    MemoryError::new(ErrorCode::StorageFailure, "cannot start the memory folder")
                        .with_detail("cause", error.to_string())
                })?;
                let service = MemoryService::new(store, self.policy.clone(), self.settings.clone())
                    .with_folder(folder);
                Ok::<_, MemoryError>(Arc::new(service))
            })
            .await?;
        Ok(Arc::clone(service))
    }
}

impl Profile for MemoryProfile {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn tools(&self) -> Vec<rmcp::model::Tool> {
        tools::tool_definitions()
    }

    fn instructions(&self) -> &'static str {
        tools::INSTRUCTIONS
    }

    fn call<'a>(
        &'a self,
        catalog: &'a Catalog,
        tool: &'a str,
        arguments: &'a Arguments,
    ) -> ReplyFuture<'a> {
        Box::pin(async move {
            if !tools::NAMES.contains(&tool) {
                return None;
            }
            let outcome = match self.service(catalog).await {
                Ok(service) => run_blocking(service, tool.to_owned(), arguments.clone()).await,
                Err(error) => Err(error),
            };
            Some(match outcome {
                Ok(response) => success(response),
                Err(error) => failure(&error),
            })
        })
    }
}

/// Runs one call on the blocking pool (journal fsync, tantivy); a panic is a
/// `STORAGE_FAILURE`, as the seed reports unexpected errors.
async fn run_blocking(
    service: Arc<MemoryService>,
    tool: String,
    arguments: Arguments,
) -> Result<Value, MemoryError> {
    tokio::task::spawn_blocking(move || execute(&service, &tool, &arguments))
        .await
        .unwrap_or_else(|panic| {
            tracing::error!(%panic, "a memory tool panicked");
            Err(
                MemoryError::new(ErrorCode::StorageFailure, "unexpected internal error")
                    .with_detail("cause", "the tool failed unexpectedly"),
            )
        })
}

/// Parses the arguments of `tool` and runs it.
pub fn execute(
    service: &MemoryService,
    tool: &str,
    arguments: &Arguments,
) -> Result<Value, MemoryError> {
    match tool {
        tools::SAVE_MEMORY => to_json(service.save(args::save(arguments)?)?),
        tools::SEARCH => to_json(service.search(&args::search(arguments)?)?),
        tools::TIMELINE => to_json(service.timeline(&args::timeline(arguments)?)?),
        tools::GET_ENTRIES => to_json(service.get_entries(&args::ids(arguments)?)?),
        tools::INGEST_DOCS => to_json(service.ingest_docs(&args::ingest(arguments)?)?),
        tools::RETENTION_DRY_RUN => {
            to_json(service.retention_dry_run(&args::retention(arguments)?)?)
        }
        other => Err(MemoryError::invalid(
            "tool",
            format!("unknown tool {other}"),
        )),
    }
}

fn to_json(response: impl Serialize) -> Result<Value, MemoryError> {
    serde_json::to_value(response).map_err(|error| {
        MemoryError::new(ErrorCode::StorageFailure, "cannot encode the response")
            .with_detail("cause", error.to_string())
    })
}

/// The reply of a successful call: the response as structured content and as its JSON text.
pub fn success(response: Value) -> ToolReply {
    ToolReply {
        text: response.to_string(),
        envelope: response,
        is_error: false,
    }
}

/// The reply of a failed call: `{error:{code, message, details}}`, `isError: true`.
pub fn failure(error: &MemoryError) -> ToolReply {
    let envelope = json!({ "error": error.to_json() });
    ToolReply {
        text: envelope.to_string(),
        envelope,
        is_error: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_have_the_seed_shape() {
        let reply = failure(&MemoryError::invalid("query", "query is required"));
        assert!(reply.is_error);
        assert_eq!(
            reply.envelope,
            json!({"error": {
                "code": "INVALID_ARGUMENT",
                "message": "query is required",
                "details": {"field": "query"},
            }})
        );
        let text: Value = serde_json::from_str(&reply.text).unwrap();
        assert_eq!(text, reply.envelope);
    }

    #[test]
    fn the_six_tools_are_advertised_in_the_seed_order() {
        let names: Vec<String> = tools::tool_definitions()
            .iter()
            .map(|tool| tool.name.to_string())
            .collect();
        assert_eq!(
            names,
            [
                "save_memory",
                "search",
                "timeline",
                "get_entries",
                "ingest_docs",
                "retention_dry_run"
            ]
        );
    }
}
