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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::envelope::ErrorCode;
    use serde_json::json;

    /// A tool that takes longer than its deadline.
    struct Sleepy;

    impl ToolHandler for Sleepy {
        type Request = ();

        const NAME: ToolName = ToolName::SearchSessions;

        fn parse(arguments: &Arguments) -> Result<(), ToolError> {
            match arguments.get("reject") {
                Some(_) => Err(ToolError::invalid_request("reject", "rejected on purpose")),
                None => Ok(()),
            }
        }

        fn rejected_sla(_arguments: &Arguments) -> SlaTarget {
            SlaTarget::ms(750)
        }

        fn canonical(_request: &()) -> Value {
            json!({"canonical": true})
        }

        fn sla(_request: &()) -> SlaTarget {
            SlaTarget::ms(10)
        }

        fn deadline(_request: &()) -> Duration {
            Duration::from_millis(50)
        }

        async fn execute(_catalog: &Catalog, _request: &()) -> Result<ToolSuccess, ToolError> {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(ToolSuccess::new(json!({}), "late".into()))
        }
    }

    fn empty_catalog() -> Catalog {
        let data_dir = tempfile::tempdir().expect("temp dir").keep();
        Catalog::open(&data_dir).expect("empty store opens")
    }

    #[tokio::test]
    async fn a_slow_tool_answers_deadline_exceeded_in_time() {
        let catalog = empty_catalog();
        let timer = Timer::start();
        let reply = handle::<Sleepy>(&catalog, &Arguments::new(), timer).await;
        assert!(timer.elapsed() < Duration::from_secs(1));
        assert!(reply.is_error);
        assert_eq!(
            reply.envelope["error"]["code"],
            ErrorCode::DeadlineExceeded.as_str()
        );
        assert_eq!(reply.envelope["request"], json!({"canonical": true}));
        assert_eq!(reply.envelope["performance"]["met_sla"], false);
    }

    #[tokio::test]
    async fn a_rejected_request_echoes_the_raw_arguments() {
        let catalog = empty_catalog();
        let arguments = json!({"reject": 1}).as_object().unwrap().clone();
        let reply = handle::<Sleepy>(&catalog, &arguments, Timer::start()).await;
        assert_eq!(reply.envelope["request"], json!({"reject": 1}));
        assert_eq!(reply.envelope["performance"]["sla_target_ms"], 750);
    }
}
