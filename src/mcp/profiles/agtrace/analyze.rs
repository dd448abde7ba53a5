//! `analyze_session`: a diagnostic health check of one session through three lenses —
//! Failures (failed tool results per turn), Loops (a tool call repeated with the same
//! arguments, or the same tool sequence over consecutive turns) and TokenUsage (token-heavy
//! turns, a prompt near the model's context window) — scored as AgTrace scores it. The rules
//! are documented in `docs/MCP.md`.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::args::{flag, reject_unknown, required_text};
use super::reply::AgError;
use super::steps::{EventLine, Tokens, by_turn, load_events, split_turn, turn_tokens};
use super::{AgTool, Context};
use crate::model::EventType;
use crate::service::catalog::{NamedQuery, text_parameter};
use crate::service::validate::Arguments;

const SESSION: NamedQuery = NamedQuery {
    name: "agtrace_session",
    sql: include_str!("../../../../queries/agtrace_session.sql"),
};

const FIELDS: [&str; 3] = ["session_id", "include_failures", "include_loops"];
/// Identical consecutive tool calls that make a loop.
pub const REPEATED_CALLS: usize = 3;
/// Consecutive turns with the same tool sequence that make a loop.
pub const REPEATED_TURNS: usize = 3;
/// A turn using more than this many times the session's median turn tokens is an outlier.
pub const OUTLIER_FACTOR: i64 = 3;
/// Turns with token counts needed before a median means anything.
const MIN_TURNS_FOR_MEDIAN: usize = 3;
/// A prompt at this share of the context window is near it (Warning); at the second, Critical.
const NEAR_WINDOW_PERCENT: i64 = 80;
const AT_WINDOW_PERCENT: i64 = 95;
/// Most insights listed (the seed's 5 KB response maximum); the rest are counted.
const MAX_INSIGHTS: usize = 25;

/// A validated request.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalyzeRequest {
    pub session_id: String,
    pub include_failures: bool,
    pub include_loops: bool,
}

/// Insight severities, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Critical,
    Warning,
    Info,
}

impl Severity {
    fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "Critical",
            Severity::Warning => "Warning",
            Severity::Info => "Info",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insight {
    pub turn_index: i64,
    pub severity: Severity,
    pub lens: &'static str,
    pub message: String,
}

pub struct AnalyzeSession;

impl AgTool for AnalyzeSession {
    type Request = AnalyzeRequest;

    const NAME: &'static str = "analyze_session";

    fn parse(arguments: &Arguments) -> Result<AnalyzeRequest, AgError> {
        reject_unknown(arguments, &FIELDS)?;
        Ok(AnalyzeRequest {
            session_id: required_text(arguments, "session_id")?.to_owned(),
            include_failures: flag(arguments, "include_failures", true)?,
            include_loops: flag(arguments, "include_loops", false)?,
        })
    }

    async fn execute(context: &Context<'_>, request: &AnalyzeRequest) -> Result<Value, AgError> {
        let key = context.resolve(&request.session_id).await?;
        let snapshot = &context.snapshot;
        let all_turns = 1..key.turn_count + 1;
        let (session_rows, events, tokens) = tokio::try_join!(
            async {
                Ok::<_, AgError>(
                    snapshot
                        .run(SESSION, vec![text_parameter(&key.session_id)])
                        .await?,
                )
            },
            load_events(snapshot, &key, all_turns.clone(), 0),
            turn_tokens(snapshot, &key.session_id, all_turns),
        )?;
        let model = session_rows
            .first()
            .map(|session| session.opt_string("model"))
            .transpose()?
            .flatten()
            .map(str::to_owned);
        let mut insights = Vec::new();
        if request.include_failures {
            insights.extend(failure_insights(&events));
        }
        if request.include_loops {
            insights.extend(repeated_call_insights(&events));
            insights.extend(repeated_sequence_insights(&events));
        }
        insights.extend(token_outlier_insights(&tokens));
        insights.extend(context_window_insights(&events, model.as_deref()));
        Ok(report(&key.native_id, insights, &events))
    }
}

/// The response: score, insights (most severe first, then by turn) and event counts.
fn report(native_id: &str, mut insights: Vec<Insight>, events: &[EventLine]) -> Value {
    insights.sort_by(|left, right| {
        (left.severity, left.turn_index).cmp(&(right.severity, right.turn_index))
    });
    let score = 100_i64.saturating_sub(10 * insights.len() as i64).max(0);
    let total = insights.len();
    let listed: Vec<Value> = insights
        .iter()
        .take(MAX_INSIGHTS)
        .map(|insight| {
            json!({
                "turn_index": insight.turn_index,
                "severity": insight.severity.as_str(),
                "lens": insight.lens,
                "message": insight.message,
            })
        })
        .collect();
    let count = |kind: EventType| events.iter().filter(|event| event.kind == kind).count();
    let mut response = json!({
        "session_id": native_id,
        "score": score,
        "insights": listed,
        "summary": {
            "event_counts": {
                "assistant_messages": count(EventType::AssistantResponse),
                "tool_calls": count(EventType::ToolCall),
                "tool_results": count(EventType::ToolResponse),
                "user_messages": count(EventType::UserInput),
            },
            "failed_tool_results": events.iter().filter(|event| event.failed).count(),
        },
    });
    if total > MAX_INSIGHTS {
        response["total_insights"] = json!(total);
        response["hint"] = json!(format!(
            "Listing the {MAX_INSIGHTS} most severe of {total} insights; get_session_details(session_id, detail_level='turns') shows every turn's outcome"
        ));
    }
    response
}

/// Failures: one Critical insight per turn with failed tool results.
pub fn failure_insights(events: &[EventLine]) -> Vec<Insight> {
    by_turn(events)
        .into_iter()
        .filter_map(|(ordinal, turn_events)| {
            let failed: Vec<&str> = turn_events
                .iter()
                .filter(|event| event.failed)
                .map(|event| event.tool_name.as_deref().unwrap_or("unknown_tool"))
                .collect();
            (!failed.is_empty()).then(|| Insight {
                turn_index: ordinal - 1,
                severity: Severity::Critical,
                lens: "Failures",
                message: format!(
                    "{} tool execution(s) failed ({})",
                    failed.len(),
                    distinct(&failed).join(", ")
                ),
            })
        })
        .collect()
}

fn distinct<'a>(names: &[&'a str]) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for name in names {
        if !seen.contains(name) {
            seen.push(name);
        }
    }
    seen
}

/// Loops: a run of at least [`REPEATED_CALLS`] consecutive tool calls (other events between
/// them do not break the run) with the same name and arguments; one Warning per run, at the
/// turn where it reaches the threshold.
pub fn repeated_call_insights(events: &[EventLine]) -> Vec<Insight> {
    let calls: Vec<&EventLine> = events
        .iter()
        .filter(|event| event.kind == EventType::ToolCall)
        .collect();
    let mut insights = Vec::new();
    let mut run_start = 0;
    for index in 1..=calls.len() {
        let same = index < calls.len() && same_call(calls[index], calls[run_start]);
        if same {
            continue;
        }
        let run_length = index - run_start;
        if run_length >= REPEATED_CALLS {
            let at = calls[run_start + REPEATED_CALLS - 1];
            insights.push(Insight {
                turn_index: at.turn_ordinal - 1,
                severity: Severity::Warning,
                lens: "Loops",
                message: format!(
                    "{} called {run_length} times in a row with the same arguments",
                    at.tool_name.as_deref().unwrap_or("unknown_tool")
                ),
            });
        }
        run_start = index;
    }
    insights
}

fn same_call(left: &EventLine, right: &EventLine) -> bool {
    left.tool_name == right.tool_name && left.arguments_digest == right.arguments_digest
}

/// Loops: the same non-empty tool sequence in [`REPEATED_TURNS`] or more consecutive turns;
/// a Warning for each turn from the third on (AgTrace's rule).
pub fn repeated_sequence_insights(events: &[EventLine]) -> Vec<Insight> {
    let mut insights = Vec::new();
    let mut previous: Option<(i64, Vec<String>)> = None;
    let mut repeats = 0;
    for (ordinal, turn_events) in by_turn(events) {
        let sequence: Vec<String> = split_turn(&turn_events)
            .steps
            .iter()
            .flat_map(|step| &step.tools)
            .filter(|tool| tool.call.is_some())
            .map(|tool| tool.name().to_owned())
            .collect();
        let continues = previous
            .as_ref()
            .is_some_and(|(previous_ordinal, previous_sequence)| {
                *previous_ordinal == ordinal - 1 && *previous_sequence == sequence
            });
        repeats = if continues && !sequence.is_empty() {
            repeats + 1
        } else {
            0
        };
        if repeats + 1 >= REPEATED_TURNS {
            insights.push(Insight {
                turn_index: ordinal - 1,
                severity: Severity::Warning,
                lens: "Loops",
                message: format!(
                    "Repeated tool sequence detected ({} turns in a row: {})",
                    repeats + 1,
                    sequence.join(" > ")
                ),
            });
        }
        previous = Some((ordinal, sequence));
    }
    insights
}

/// TokenUsage: turns whose tokens exceed [`OUTLIER_FACTOR`] times the session's median turn.
pub fn token_outlier_insights(tokens: &HashMap<i64, Tokens>) -> Vec<Insight> {
    let mut totals: Vec<(i64, i64)> = tokens
        .iter()
        .filter_map(|(ordinal, tokens)| tokens.best_total().map(|total| (*ordinal, total)))
        .collect();
    if totals.len() < MIN_TURNS_FOR_MEDIAN {
        return Vec::new();
    }
    totals.sort_unstable();
    let mut sorted: Vec<i64> = totals.iter().map(|(_, total)| *total).collect();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2];
    if median <= 0 {
        return Vec::new();
    }
    totals
        .into_iter()
        .filter(|(_, total)| *total > OUTLIER_FACTOR * median)
        .map(|(ordinal, total)| Insight {
            turn_index: ordinal - 1,
            severity: Severity::Warning,
            lens: "TokenUsage",
            message: format!(
                "Turn used {total} tokens, {:.1}x the session's median turn ({median})",
                total as f64 / median as f64
            ),
        })
        .collect()
}

/// TokenUsage: the largest prompt (input tokens of one model call) against the context window
/// of the session's model; one insight at the turn of that call.
pub fn context_window_insights(events: &[EventLine], model: Option<&str>) -> Vec<Insight> {
    let Some((model, window)) = model.and_then(|model| context_window(model).map(|w| (model, w)))
    else {
        return Vec::new();
    };
    let largest = events
        .iter()
        .filter_map(|event| Some((event.tokens?.input?, event)))
        .max_by_key(|(input, _)| *input);
    let Some((input, event)) = largest else {
        return Vec::new();
    };
    let percent = input * 100 / window;
    let severity = match percent {
        p if p >= AT_WINDOW_PERCENT => Severity::Critical,
        p if p >= NEAR_WINDOW_PERCENT => Severity::Warning,
        _ => return Vec::new(),
    };
    vec![Insight {
        turn_index: event.turn_ordinal - 1,
        severity,
        lens: "TokenUsage",
        message: format!(
            "Prompt of {input} tokens is {percent}% of {model}'s {window}-token context window"
        ),
    }]
}

/// The context window of a model family, in tokens (by name prefix; unknown models have none).
pub fn context_window(model: &str) -> Option<i64> {
    const WINDOWS: [(&str, i64); 9] = [
        ("claude-sonnet-4", 200_000),
        ("claude", 200_000),
        ("gpt-5", 272_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-4o", 128_000),
        ("o3", 200_000),
        ("o4", 200_000),
        ("gemini-2", 1_048_576),
        ("gemini", 1_048_576),
    ];
    let model = model.to_ascii_lowercase();
    WINDOWS
        .iter()
        .find(|(prefix, _)| model.starts_with(prefix))
        .map(|(_, window)| *window)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::profiles::agtrace::steps::tests::{call, line, result};

    fn in_turn(mut event: EventLine, ordinal: i64) -> EventLine {
        event.turn_ordinal = ordinal;
        event
    }

    #[test]
    fn failures_are_counted_per_turn() {
        let events = vec![
            in_turn(call(1, "Bash", "a"), 1),
            in_turn(result(2, "Bash", "a", true), 1),
            in_turn(call(3, "Bash", "b"), 1),
            in_turn(result(4, "Bash", "b", true), 1),
            in_turn(call(5, "Read", "c"), 2),
            in_turn(result(6, "Read", "c", false), 2),
        ];
        let insights = failure_insights(&events);
        assert_eq!(insights.len(), 1);
        assert_eq!(insights[0].turn_index, 0);
        assert_eq!(insights[0].message, "2 tool execution(s) failed (Bash)");
    }

    #[test]
    fn identical_calls_in_a_row_are_a_loop() {
        let events: Vec<EventLine> = (0..4)
            .flat_map(|n| {
                [
                    call(2 * n + 1, "Read", &format!("c{n}")),
                    result(2 * n + 2, "Read", &format!("c{n}"), false),
                ]
            })
            .collect();
        let insights = repeated_call_insights(&events);
        assert_eq!(insights.len(), 1);
        assert!(insights[0].message.contains("4 times"), "{insights:?}");
        let two = &events[..4];
        assert!(repeated_call_insights(two).is_empty());
    }

    #[test]
    fn the_same_sequence_over_three_turns_is_a_loop() {
        let mut events = Vec::new();
        for turn in 1..=4 {
            events.push(in_turn(line(turn * 10, EventType::UserInput), turn));
            let mut read = call(turn * 10 + 1, "Read", "x");
            read.arguments_digest = Some(format!("different {turn}"));
            events.push(in_turn(read, turn));
            events.push(in_turn(call(turn * 10 + 2, "Edit", "y"), turn));
        }
        let insights = repeated_sequence_insights(&events);
        let turns: Vec<i64> = insights.iter().map(|insight| insight.turn_index).collect();
        assert_eq!(turns, [2, 3]);
    }

    #[test]
    fn a_token_heavy_turn_is_an_outlier() {
        let tokens: HashMap<i64, Tokens> = [(1, 100), (2, 120), (3, 90), (4, 1_000)]
            .into_iter()
            .map(|(ordinal, total)| {
                (
                    ordinal,
                    Tokens {
                        total: Some(total),
                        ..Tokens::default()
                    },
                )
            })
            .collect();
        let insights = token_outlier_insights(&tokens);
        assert_eq!(insights.len(), 1);
        assert_eq!(insights[0].turn_index, 3);
    }

    #[test]
    fn a_prompt_near_the_window_is_reported() {
        let mut big = call(1, "Read", "a");
        big.tokens = Some(Tokens {
            input: Some(190_000),
            ..Tokens::default()
        });
        let insights = context_window_insights(&[big], Some("claude-opus-4-1"));
        assert_eq!(insights[0].severity, Severity::Critical);
        assert!(context_window_insights(&[], Some("claude-opus-4-1")).is_empty());
        assert_eq!(context_window("mystery"), None);
    }
}
