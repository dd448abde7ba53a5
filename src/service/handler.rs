//! The one request lifecycle every tool shares: validate the raw arguments, run under the
//! tool's deadline, and wrap the outcome in the success or error envelope. A validation error
//! echoes the raw arguments as `request` (nesting cut at [`MAX_ECHO_DEPTH`]); later errors echo
//! the canonical request. A panic anywhere in a tool is an in-band `internal_error`.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt;
use serde_json::Value;

use crate::service::catalog::Catalog;
use crate::service::envelope::{SlaTarget, Timer, ToolError, ToolName, ToolReply, ToolSuccess};
use crate::service::validate::Arguments;

/// One tool: its request type, validation, canonical form, targets and execution.
pub trait ToolHandler {
    type Request: Send + Sync;

    const NAME: ToolName;

    /// Strict validation of the raw arguments.
    fn parse(arguments: &Arguments) -> Result<Self::Request, ToolError>;

    /// The SLA target reported when the arguments did not validate.
    fn rejected_sla(arguments: &Arguments) -> SlaTarget;

    /// `request` of an answer to arguments that did not validate: by default the raw
    /// arguments (nesting cut at [`MAX_ECHO_DEPTH`]).
    fn rejected_request(arguments: &Arguments) -> Value {
        echo_arguments(arguments)
    }

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

/// Deepest nesting of raw arguments echoed in a rejected request's `request`; deeper values
/// become [`TOO_DEEP_TO_ECHO`]. The reply nests the echo deeper than the request nested the
/// arguments, so an echo in full could exceed the parser depth limit the request itself only
/// just fit in (serde_json stops at 128), and that client could never read its answer.
pub const MAX_ECHO_DEPTH: usize = 32;
pub const TOO_DEEP_TO_ECHO: &str = "<nested too deep to echo>";

/// Runs one call of tool `T` end to end; never fails (errors are in-band envelopes).
pub async fn handle<T: ToolHandler>(
    catalog: &Catalog,
    arguments: &Arguments,
    timer: Timer,
) -> ToolReply {
    let parsed = std::panic::catch_unwind(AssertUnwindSafe(|| T::parse(arguments)))
        .unwrap_or_else(|panic| Err(panicked(panic)));
    let request = match parsed {
        Ok(request) => request,
        Err(error) => {
            let raw_request = T::rejected_request(arguments);
            return ToolReply::failure(
                T::NAME,
                raw_request,
                &error,
                T::rejected_sla(arguments),
                &timer,
            );
        }
    };
    let deadline = scaled_deadline(T::deadline(&request));
    let remaining = deadline.saturating_sub(timer.elapsed());
    let execution = AssertUnwindSafe(T::execute(catalog, &request))
        .catch_unwind()
        .map(|outcome| outcome.unwrap_or_else(|panic| Err(panicked(panic))));
    let outcome = tokio::time::timeout(remaining, execution)
        .await
        .unwrap_or_else(|_| Err(ToolError::deadline_exceeded(deadline)));
    let canonical = T::canonical(&request);
    let sla = T::sla(&request);
    match outcome {
        Ok(success) => ToolReply::success(T::NAME, canonical, success, sla, &timer),
        Err(error) => ToolReply::failure(T::NAME, canonical, &error, sla, &timer),
    }
}

/// Multiplies every tool deadline: `ESKER_DEADLINE_SCALE` when set to a positive number,
/// else 10 in a debug build (the test suite's, ten or more times slower than release, on a
/// loaded CI machine) and 1 in a release build. The SLA target an answer reports is never
/// scaled: only how long a call may run before it answers `deadline_exceeded`.
pub fn deadline_scale() -> f64 {
    static SCALE: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *SCALE
        .get_or_init(|| parse_deadline_scale(std::env::var("ESKER_DEADLINE_SCALE").ok().as_deref()))
}

fn parse_deadline_scale(value: Option<&str>) -> f64 {
    let default = if cfg!(debug_assertions) { 10.0 } else { 1.0 };
    value
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|scale| scale.is_finite() && *scale > 0.0)
        .unwrap_or(default)
}

fn scaled_deadline(deadline: Duration) -> Duration {
    deadline.mul_f64(deadline_scale())
}

/// The raw arguments as echoed in `request`: nesting cut at [`MAX_ECHO_DEPTH`].
fn echo_arguments(arguments: &Arguments) -> Value {
    echo_fields(arguments, MAX_ECHO_DEPTH - 1)
}

fn echo_fields(fields: &Arguments, depth_left: usize) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|(name, field)| (name.clone(), echo(field, depth_left)))
            .collect(),
    )
}

/// `value` with containers nested deeper than `depth_left` replaced by [`TOO_DEEP_TO_ECHO`].
fn echo(value: &Value, depth_left: usize) -> Value {
    match value {
        Value::Array(_) | Value::Object(_) if depth_left == 0 => TOO_DEEP_TO_ECHO.into(),
        Value::Array(items) => items
            .iter()
            .map(|item| echo(item, depth_left - 1))
            .collect(),
        Value::Object(fields) => echo_fields(fields, depth_left - 1),
        scalar => scalar.clone(),
    }
}

/// A tool panicked: logged, and answered as an in-band `internal_error`.
fn panicked(panic: Box<dyn Any + Send>) -> ToolError {
    let reason = panic
        .downcast_ref::<&str>()
        .map(|reason| (*reason).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(%reason, "a tool panicked");
    ToolError::internal("the tool failed unexpectedly")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::envelope::ErrorCode;
    use serde_json::json;

    thread_local! {
        /// Makes `Sleepy::execute` panic (current-thread test runtimes only).
        static PANIC_IN_EXECUTE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// A tool that takes longer than its deadline (or panics, on request).
    struct Sleepy;

    impl ToolHandler for Sleepy {
        type Request = ();

        const NAME: ToolName = ToolName::SearchSessions;

        fn parse(arguments: &Arguments) -> Result<(), ToolError> {
            match arguments.get("reject") {
                Some(_) => Err(ToolError::invalid_request("reject", "rejected on purpose")),
                None if arguments.contains_key("panic_in_parse") => panic!("parse blew up"),
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
            if PANIC_IN_EXECUTE.get() {
                panic!("execute blew up");
            }
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
        assert!(
            timer.elapsed() < scaled_deadline(Duration::from_millis(50)) + Duration::from_secs(1)
        );
        assert!(reply.is_error);
        assert_eq!(
            reply.envelope["error"]["code"],
            ErrorCode::DeadlineExceeded.as_str()
        );
        assert_eq!(reply.envelope["request"], json!({"canonical": true}));
        assert_eq!(reply.envelope["performance"]["met_sla"], false);
    }

    #[test]
    fn the_deadline_scale_takes_a_positive_number_and_defaults_by_build() {
        let default = if cfg!(debug_assertions) { 10.0 } else { 1.0 };
        assert_eq!(parse_deadline_scale(None), default);
        assert_eq!(parse_deadline_scale(Some("2.5")), 2.5);
        for bad in ["0", "-1", "NaN", "inf", "fast"] {
            assert_eq!(parse_deadline_scale(Some(bad)), default, "{bad}");
        }
    }

    #[tokio::test]
    async fn a_rejected_request_echoes_the_raw_arguments() {
        let catalog = empty_catalog();
        let arguments = json!({"reject": 1}).as_object().unwrap().clone();
        let reply = handle::<Sleepy>(&catalog, &arguments, Timer::start()).await;
        assert_eq!(reply.envelope["request"], json!({"reject": 1}));
        assert_eq!(reply.envelope["performance"]["sla_target_ms"], 750);
    }

    #[tokio::test]
    async fn a_panicking_tool_is_an_in_band_internal_error() {
        let catalog = empty_catalog();
        let arguments = json!({"panic_in_parse": true}).as_object().unwrap().clone();
        let reply = handle::<Sleepy>(&catalog, &arguments, Timer::start()).await;
        assert_eq!(reply.envelope["error"]["code"], "internal_error");
        assert_eq!(reply.envelope["request"], json!({"panic_in_parse": true}));

        PANIC_IN_EXECUTE.set(true);
        let reply = handle::<Sleepy>(&catalog, &Arguments::new(), Timer::start()).await;
        PANIC_IN_EXECUTE.set(false);
        assert_eq!(reply.envelope["error"]["code"], "internal_error");
        assert_eq!(reply.envelope["request"], json!({"canonical": true}));
    }

    #[tokio::test]
    async fn a_rejected_request_echoes_deep_arguments_only_so_deep() {
        let catalog = empty_catalog();
        let deep = (0..200).fold(json!("leaf"), |inner, _| json!([inner]));
        let arguments = json!({"reject": deep}).as_object().unwrap().clone();
        let reply = handle::<Sleepy>(&catalog, &arguments, Timer::start()).await;
        let mut echoed = &reply.envelope["request"]["reject"];
        let mut depth = 1;
        while let Some(inner) = echoed.get(0) {
            echoed = inner;
            depth += 1;
        }
        assert_eq!(depth, MAX_ECHO_DEPTH);
        assert_eq!(echoed, TOO_DEEP_TO_ECHO);
    }
}
