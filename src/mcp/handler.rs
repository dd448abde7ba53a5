//! The one request lifecycle every tool shares: validate the raw arguments, run under the
//! tool's deadline, and wrap the outcome in the success or error envelope. A validation error
//! echoes the raw arguments as `request`; later errors echo the canonical request.

use std::future::Future;
use std::time::Duration;

use serde_json::Value;

use crate::mcp::catalog::Catalog;
use crate::mcp::envelope::{SlaTarget, Timer, ToolError, ToolName, ToolReply, ToolSuccess};
use crate::mcp::validate::Arguments;

/// One tool: its request type, validation, canonical form, targets and execution.
pub trait ToolHandler {
    type Request: Send + Sync;

    const NAME: ToolName;

    /// Strict validation of the raw arguments.
    fn parse(arguments: &Arguments) -> Result<Self::Request, ToolError>;

    /// The SLA target reported when the arguments did not validate.
    fn rejected_sla(arguments: &Arguments) -> SlaTarget;

    /// The request after defaults are applied, as echoed in `request`.
    fn canonical(request: &Self::Request) -> Value;

    /// The spec's SLA target for this request.
    fn sla(request: &Self::Request) -> SlaTarget;

    /// Time allowed from receipt to response before answering `deadline_exceeded`.
    fn deadline(request: &Self::Request) -> Duration;

    fn execute(
        catalog: &Catalog,
        request: &Self::Request,
    ) -> impl Future<Output = Result<ToolSuccess, ToolError>> + Send;
}

/// Runs one call of tool `T` end to end; never fails (errors are in-band envelopes).
pub async fn handle<T: ToolHandler>(
    catalog: &Catalog,
    arguments: &Arguments,
    timer: Timer,
) -> ToolReply {
    let request = match T::parse(arguments) {
        Ok(request) => request,
        Err(error) => {
            let raw_request = Value::Object(arguments.clone());
            return ToolReply::failure(
                T::NAME,
                raw_request,
                &error,
                T::rejected_sla(arguments),
                &timer,
            );
        }
    };
    let deadline = T::deadline(&request);
    let remaining = deadline.saturating_sub(timer.elapsed());
    let outcome = tokio::time::timeout(remaining, T::execute(catalog, &request))
        .await
        .unwrap_or_else(|_| Err(ToolError::deadline_exceeded(deadline)));
    let canonical = T::canonical(&request);
    let sla = T::sla(&request);
    match outcome {
        Ok(success) => ToolReply::success(T::NAME, canonical, success, sla, &timer),
        Err(error) => ToolReply::failure(T::NAME, canonical, &error, sla, &timer),
    }
}
