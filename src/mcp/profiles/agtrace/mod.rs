//! The `agtrace` profile: AgTrace's MCP tools (seed 004) over esker's store —
//! `list_sessions`, `get_project_info`, `get_session_details`, `analyze_session`,
//! `search_event_previews` and `get_event_details` — with AgTrace's native session ids,
//! 0-based event indexes (`seq - 1`), size budgets and structured errors.
//!
//! Layout: [`tools`] (advertised definitions), [`args`] and [`cursor`] (validation, opaque
//! cursors), [`sessions`] (native id / prefix resolution), one module per tool
//! ([`list`], [`details`], [`analyze`], [`search`], [`event`]), [`steps`] (turns split into
//! model-call steps), [`budget`] (packing turns into a size budget) and [`reply`] (errors).
//! Rules behind `analyze_session` are documented in `docs/MCP.md`.

pub mod analyze;
pub mod args;
pub mod budget;
pub mod cursor;
pub mod details;
pub mod event;
pub mod list;
pub mod reply;
pub mod search;
pub mod sessions;
pub mod steps;
pub mod tools;

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use serde_json::Value;
use tokio::sync::Mutex;

use self::reply::{AgError, AgErrorCode};
use self::sessions::{SessionKey, SessionKeys};
use crate::mcp::profiles::{Profile, ReplyFuture};
use crate::service::catalog::{Catalog, WarmSnapshot};
use crate::service::envelope::ToolReply;
use crate::service::validate::Arguments;

/// The seed's timeout protection: no call runs longer than this.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// The agtrace profile; caches the session keys of the current generation.
#[derive(Default)]
pub struct AgTrace {
    keys: Mutex<Option<Arc<SessionKeys>>>,
}

/// One agtrace tool: validation and execution.
pub trait AgTool {
    type Request: Send + Sync;

    const NAME: &'static str;

    fn parse(arguments: &Arguments) -> Result<Self::Request, AgError>;

    fn execute(
        context: &Context<'_>,
        request: &Self::Request,
    ) -> impl Future<Output = Result<Value, AgError>> + Send;
}

/// What a tool runs against: the current generation and the profile's caches.
pub struct Context<'a> {
    pub snapshot: Arc<WarmSnapshot>,
    profile: &'a AgTrace,
}

impl Context<'_> {
    /// The session keys of this generation (loaded on first use).
    pub async fn keys(&self) -> Result<Arc<SessionKeys>, AgError> {
        let mut cached = self.profile.keys.lock().await;
        if let Some(keys) = cached
            .as_ref()
            .filter(|keys| keys.generation == self.snapshot.generation)
        {
            return Ok(Arc::clone(keys));
        }
        let keys = Arc::new(SessionKeys::load(&self.snapshot).await?);
        *cached = Some(Arc::clone(&keys));
        Ok(keys)
    }

    /// The session a `session_id` argument names.
    pub async fn resolve(&self, session_id: &str) -> Result<SessionKey, AgError> {
        Ok(self.keys().await?.resolve(session_id)?.clone())
    }
}

impl Profile for AgTrace {
    fn name(&self) -> &'static str {
        "agtrace"
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
                list::ListSessions::NAME => {
                    self.run::<list::ListSessions>(catalog, arguments).await
                }
                list::ProjectInfo::NAME => self.run::<list::ProjectInfo>(catalog, arguments).await,
                details::SessionDetails::NAME => {
                    self.run::<details::SessionDetails>(catalog, arguments)
                        .await
                }
                analyze::AnalyzeSession::NAME => {
                    self.run::<analyze::AnalyzeSession>(catalog, arguments)
                        .await
                }
                search::SearchPreviews::NAME => {
                    self.run::<search::SearchPreviews>(catalog, arguments).await
                }
                event::EventDetails::NAME => {
                    self.run::<event::EventDetails>(catalog, arguments).await
                }
                _ => return None,
            };
            Some(reply)
        })
    }
}

impl AgTrace {
    /// One call of `T` end to end: validate, execute under [`DEADLINE`], reply; a panic is an
    /// in-band `internal_error`.
    async fn run<T: AgTool>(&self, catalog: &Catalog, arguments: &Arguments) -> ToolReply {
        let outcome = match std::panic::catch_unwind(AssertUnwindSafe(|| T::parse(arguments))) {
            Ok(Ok(request)) => self.execute::<T>(catalog, &request).await,
            Ok(Err(error)) => Err(error),
            Err(panic) => Err(panicked(panic)),
        };
        match outcome {
            Ok(response) => reply::success(response),
            Err(error) => reply::failure(&error),
        }
    }

    async fn execute<T: AgTool>(
        &self,
        catalog: &Catalog,
        request: &T::Request,
    ) -> Result<Value, AgError> {
        let work = async {
            let context = Context {
                snapshot: catalog.snapshot().await?,
                profile: self,
            };
            T::execute(&context, request).await
        };
        let guarded = AssertUnwindSafe(work)
            .catch_unwind()
            .map(|outcome| outcome.unwrap_or_else(|panic| Err(panicked(panic))));
        tokio::time::timeout(DEADLINE, guarded)
            .await
            .unwrap_or_else(|_| Err(timed_out(T::NAME)))
    }
}

fn timed_out(tool: &str) -> AgError {
    let code = if tool == search::SearchPreviews::NAME {
        AgErrorCode::SearchTimeout
    } else {
        AgErrorCode::InternalError
    };
    AgError::new(
        code,
        format!("{tool} did not finish within {} s", DEADLINE.as_secs()),
    )
    .with_detail("timeout_seconds", DEADLINE.as_secs())
}

fn panicked(panic: Box<dyn Any + Send>) -> AgError {
    let reason = panic
        .downcast_ref::<&str>()
        .map(|reason| (*reason).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(%reason, "an agtrace tool panicked");
    AgError::internal("the tool failed unexpectedly")
}
