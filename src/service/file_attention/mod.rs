//! `file_attention`: every session (and event) that touched a file, across every worktree of
//! the project. The query path is reduced to a project-relative tail ([`tail`]), matched
//! against the `file_touches` table indexed at ingest (`queries/file_attention_touches.sql`),
//! and answered as Moraine's summary, root breakdown and per-session rollups or timeline
//! ([`report`]), paged with an opaque cursor ([`page`]). Every id returned opens with `open`.

pub mod page;
pub mod report;
pub mod request;
pub mod tail;
pub mod top;

use std::time::Duration;

use chrono::{DateTime, Utc};
use datafusion::scalar::ScalarValue;
use serde_json::Value;

use crate::indexer::touches::paths;
use crate::service::catalog::{Catalog, NamedQuery, text_parameter, timestamp_parameter};
use crate::service::envelope::{SlaTarget, ToolError, ToolName, ToolSuccess};
use crate::service::handler::ToolHandler;
use crate::service::origin::Contradictory;
use crate::service::validate::Arguments;
use report::{MatchedTouch, SCAN_CAP};
use request::{AttentionRequest, Scope};
use tail::ResolvedTail;

/// Fewer segments than this make a generic tail (`mod.rs`) that may match unrelated files.
pub const MIN_TAIL_SEGMENTS: usize = 2;

const SLA: SlaTarget = SlaTarget::ms(300);
const DEADLINE: Duration = Duration::from_secs(3);

const TOUCHES: NamedQuery = NamedQuery {
    name: "file_attention_touches",
    sql: include_str!("../../../queries/file_attention_touches.sql"),
};

pub struct FileAttention;

impl ToolHandler for FileAttention {
    type Request = AttentionRequest;

    const NAME: ToolName = ToolName::FileAttention;

    fn parse(arguments: &Arguments) -> Result<AttentionRequest, ToolError> {
        request::parse(arguments)
    }

    fn rejected_sla(_arguments: &Arguments) -> SlaTarget {
        SLA
    }

    fn canonical(request: &AttentionRequest) -> Value {
        request.canonical()
    }

    fn sla(_request: &AttentionRequest) -> SlaTarget {
        SLA
    }

    fn deadline(_request: &AttentionRequest) -> Duration {
        DEADLINE
    }

    async fn execute(
        catalog: &Catalog,
        request: &AttentionRequest,
    ) -> Result<ToolSuccess, ToolError> {
        let project = std::env::current_dir()
            .ok()
            .and_then(|launch_dir| tail::launch_project(&launch_dir));
        let tail = tail::resolve_tail(&request.path, project.as_ref());
        let mut warnings = tail_warnings(request, &tail);
        let project_roots = match catalog.project_scope() {
            // A project-only server never widens past its project (issue #13).
            Some(limit) => {
                if request.scope == Scope::All {
                    warnings.push(format!(
                        "this server is scoped to the project at {}: scope=\"all\" covers only that project.",
                        limit.root()
                    ));
                }
                Some(limit.roots().to_vec())
            }
            None => requested_roots(request.scope, project.as_ref(), &mut warnings),
        };
        let touches = match (source_filter(request), &project_roots) {
            (SourceFilter::Nothing, _) => Vec::new(),
            (_, Some(roots)) if roots.is_empty() => Vec::new(),
            (sources, _) => {
                let snapshot = catalog.snapshot().await?;
                let parameters = parameters(request, &tail, &sources, project_roots.as_deref());
                let rows = snapshot.run_spread(TOUCHES, parameters).await?;
                let mut touches = rows
                    .iter()
                    .map(|row| MatchedTouch::from_row(&row))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|error| ToolError::internal(format!("{}: {error}", TOUCHES.name)))?;
                if let Some(in_scope) = snapshot.sessions_in_scope().await? {
                    // A touch's cwd may differ from its session's: the session decides.
                    touches.retain(|touch| in_scope.contains(&touch.session_id));
                }
                touches
            }
        };
        let data = report::build_data(request, &tail, touches, &mut warnings);
        let text = report::summarize(&data, &warnings);
        let mut success = ToolSuccess::new(data, text);
        success.warnings = warnings;
        Ok(success)
    }
}

/// The roots `scope` limits the touches to (`None`: every project).
fn requested_roots(
    scope: Scope,
    project: Option<&tail::LaunchProject>,
    warnings: &mut Vec<String>,
) -> Option<Vec<String>> {
    match (scope, project) {
        (Scope::All, _) => None,
        (Scope::Project, Some(project)) => Some(project.roots.clone()),
        (Scope::Project, None) => {
            warnings.push(
                "scope=\"project\" could not establish the launch project's identity; the project query remains closed rather than widening across projects."
                    .to_owned(),
            );
            Some(Vec::new())
        }
    }
}

/// Moraine's warnings about the path itself: normalized, absolute, generic.
fn tail_warnings(request: &AttentionRequest, tail: &ResolvedTail) -> Vec<String> {
    let mut warnings = Vec::new();
    if tail.normalized {
        warnings.push(format!(
            "normalized {:?} to {:?} before matching.",
            request.path, tail.tail
        ));
    }
    if tail.tail_is_absolute {
        warnings.push(format!(
            "could not reduce {:?} to a project-relative tail (no Git boundary or launch-directory containment could be proven); matching the absolute path literally, so other roots of the same file will not be unified. Pass a project-relative path for cross-root coverage.",
            request.path
        ));
    }
    let depth = paths::segment_count(&tail.tail);
    if depth < MIN_TAIL_SEGMENTS {
        warnings.push(format!(
            "{:?} is a generic tail (depth {depth}); results may include unrelated files. Pass a longer project-relative path, and check the surfaced roots.",
            tail.tail
        ));
    }
    warnings
}

/// Which sources the `harness` and `source` filters leave.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SourceFilter {
    Any,
    Only(String),
    /// The filters exclude every source (a harness and a source that disagree).
    Nothing,
}

fn source_filter(request: &AttentionRequest) -> SourceFilter {
    match request.origin.source() {
        Ok(None) => SourceFilter::Any,
        Ok(Some(source)) => SourceFilter::Only(source.as_str().to_owned()),
        Err(Contradictory) => SourceFilter::Nothing,
    }
}

/// `$1..$12` of `queries/file_attention_touches.sql`.
fn parameters(
    request: &AttentionRequest,
    tail: &ResolvedTail,
    sources: &SourceFilter,
    project_roots: Option<&[String]>,
) -> Vec<ScalarValue> {
    let source = match sources {
        SourceFilter::Only(source) => source.as_str(),
        SourceFilter::Any | SourceFilter::Nothing => "",
    };
    let roots_pattern = project_roots.map(tail::roots_pattern).unwrap_or_default();
    vec![
        text_parameter(paths::file_name(&tail.tail)),
        text_parameter(&tail.tail),
        text_parameter(&format!("/{}", tail.tail)),
        text_parameter(source),
        text_parameter(request.tool.as_deref().unwrap_or_default()),
        ScalarValue::Boolean(Some(request.mutations_only)),
        timestamp_parameter(request.start.map_or(i64::MIN, nanos_of)),
        timestamp_parameter(request.end.map_or(i64::MAX, nanos_of)),
        ScalarValue::Boolean(Some(project_roots.is_some())),
        text_parameter(&roots_pattern),
        ScalarValue::Int64(Some(SCAN_CAP as i64 + 1)),
        text_parameter(tail.absolute_path.as_deref().unwrap_or(&tail.tail)),
    ]
}

/// Nanoseconds since the epoch, clamped to what a timestamp column holds.
fn nanos_of(time: DateTime<Utc>) -> i64 {
    time.timestamp_nanos_opt()
        .unwrap_or(if time.timestamp() < 0 {
            i64::MIN
        } else {
            i64::MAX
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(arguments: Value) -> AttentionRequest {
        request::parse(arguments.as_object().unwrap()).unwrap()
    }

    #[test]
    fn harness_and_source_filters_combine() {
        let cases = [
            (json!({}), SourceFilter::Any),
            (
                json!({"harness": "claude-code"}),
                SourceFilter::Only("claude".into()),
            ),
            (
                json!({"source": "codex"}),
                SourceFilter::Only("codex".into()),
            ),
            (
                json!({"harness": "gemini-cli", "source": "gemini"}),
                SourceFilter::Only("gemini".into()),
            ),
            (
                json!({"harness": "codex", "source": "claude"}),
                SourceFilter::Nothing,
            ),
        ];
        for (filters, expected) in cases {
            let mut arguments = json!({"path": "a/b.rs"});
            for (key, value) in filters.as_object().unwrap() {
                arguments[key] = value.clone();
            }
            assert_eq!(source_filter(&request(arguments)), expected);
        }
    }

    #[test]
    fn generic_and_absolute_tails_are_warned() {
        let generic = request(json!({"path": "mod.rs"}));
        let resolved = tail::resolve_tail(&generic.path, None);
        let warnings = tail_warnings(&generic, &resolved);
        assert!(
            warnings.iter().any(|w| w.contains("generic tail")),
            "{warnings:?}"
        );
        let absolute = request(json!({"path": "/nonexistent-esker/x/y.rs"}));
        let resolved = tail::resolve_tail(&absolute.path, None);
        let warnings = tail_warnings(&absolute, &resolved);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("matching the absolute path literally"))
        );
        let specific = request(json!({"path": "src/lib.rs"}));
        let resolved = tail::resolve_tail(&specific.path, None);
        assert!(tail_warnings(&specific, &resolved).is_empty());
    }
}
