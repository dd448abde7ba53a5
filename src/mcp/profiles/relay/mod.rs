//! The `relay` profile: relay-search's conversation-history tools (seed 002) over esker's
//! store — `search_history`, `get_conversation` and `list_sessions` — with its parameters,
//! response shapes, FTS5-style queries, slug chains numbered by start time, session ranges and
//! `{"error": "..."}` replies. relay-search's tagging and workstream tools are not served.
//!
//! Layout: [`tools`] (advertised definitions), [`args`] (validation), [`reply`] (response and
//! error shapes), [`fts`] (query syntax to a [`crate::search::boolean::MatchExpression`]),
//! [`sessions`] (session rows, slugs and chain lookups), [`messages`] (events as relay
//! messages, a chain's messages in time order), [`markdown`] (the conversation as text) and one
//! module per tool ([`search`], [`conversation`], [`list`]).

pub mod args;
pub mod conversation;
pub mod fts;
pub mod list;
pub mod markdown;
pub mod messages;
pub mod reply;
pub mod search;
pub mod sessions;
pub mod tools;

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;

use self::reply::{RelayError, Response, Shape};
use crate::mcp::profiles::{Profile, ReplyFuture};
use crate::service::catalog::{Catalog, WarmSnapshot};
use crate::service::envelope::ToolReply;
use crate::service::validate::Arguments;

/// No call runs longer than this.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// The relay profile.
pub struct Relay;

/// One relay tool: validation and execution.
pub trait RelayTool {
    type Request: Send + Sync;

    const NAME: &'static str;
    /// What the tool answers, and so how its failures look.
    const SHAPE: Shape;

    fn parse(arguments: &Arguments) -> Result<Self::Request, RelayError>;

    fn execute(
        snapshot: &Arc<WarmSnapshot>,
        request: &Self::Request,
    ) -> impl Future<Output = Result<Response, RelayError>> + Send;
}

impl Profile for Relay {
    fn name(&self) -> &'static str {
        "relay"
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
            let reply = match tool {
                search::SearchHistory::NAME => {
                    run::<search::SearchHistory>(catalog, arguments).await
                }
                conversation::GetConversation::NAME => {
                    run::<conversation::GetConversation>(catalog, arguments).await
                }
                list::ListSessions::NAME => run::<list::ListSessions>(catalog, arguments).await,
                _ => return None,
            };
            Some(reply)
        })
    }
}

/// One call of `T` end to end: validate, execute under [`DEADLINE`], reply; a panic is an
/// in-band error.
async fn run<T: RelayTool>(catalog: &Catalog, arguments: &Arguments) -> ToolReply {
    let outcome = match std::panic::catch_unwind(AssertUnwindSafe(|| T::parse(arguments))) {
        Ok(Ok(request)) => execute::<T>(catalog, &request).await,
        Ok(Err(error)) => Err(error),
        Err(panic) => Err(panicked(panic)),
    };
    match outcome {
        Ok(response) => reply::success(response),
        Err(error) => reply::failure(&error, T::SHAPE),
    }
}

async fn execute<T: RelayTool>(
    catalog: &Catalog,
    request: &T::Request,
) -> Result<Response, RelayError> {
    let work = async {
        let snapshot = catalog.snapshot().await?;
        T::execute(&snapshot, request).await
    };
    let guarded = AssertUnwindSafe(work)
        .catch_unwind()
        .map(|outcome| outcome.unwrap_or_else(|panic| Err(panicked(panic))));
    tokio::time::timeout(DEADLINE, guarded)
        .await
        .unwrap_or_else(|_| {
            Err(RelayError::new(format!(
                "{} did not finish within {} s",
                T::NAME,
                DEADLINE.as_secs()
            )))
        })
}

fn panicked(panic: Box<dyn Any + Send>) -> RelayError {
    let reason = panic
        .downcast_ref::<&str>()
        .map(|reason| (*reason).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(%reason, "a relay tool panicked");
    RelayError::new("internal error: the tool failed unexpectedly")
}
