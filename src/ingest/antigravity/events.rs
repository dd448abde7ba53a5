//! Events of a conversation's steps. `PLANNER_RESPONSE` gives reasoning (`thinking`), the reply
//! (`content`) and tool calls with no id; the results follow at steps n+1 … n+k in call order,
//! so calls pair with results by position (a `SYSTEM` `ERROR_MESSAGE` there is the call's
//! failure; a gap leaves it unanswered). Keys are `step-<n>` plus a part, stable across
//! re-reads and copies of the record.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::Generation;
use super::prompt;
use super::steps::Step;
use crate::model::{
    EventType, ParseWarning, RawEvent, TokenUsage, TurnEnd, parse_timestamp, tool_call_text,
};

/// What the steps gave.
pub struct Emitted {
    pub events: Vec<RawEvent>,
    /// The session's first model: the exact id from the `.db`, else the display name.
    pub model: Option<String>,
    /// The first `Cwd` argument of a tool call (a working directory when nothing else says).
    pub tool_cwd: Option<String>,
}

/// A tool call waiting for its result.
struct PendingCall {
    expected_step: u64,
    name: String,
    call_id: String,
    answered: bool,
}

struct Emitter<'a> {
    events: Vec<RawEvent>,
    pending: Vec<PendingCall>,
    /// The display name the last settings change selected.
    display_model: Option<String>,
    /// The exact model id of the last generation the `.db` recorded.
    exact_model: Option<String>,
    first_model: Option<String>,
    tool_cwd: Option<String>,
    terminal_planners: BTreeSet<u64>,
    usage_by_step: &'a BTreeMap<u64, &'a Generation>,
}

/// Emits the events of `steps` (sorted by step), attaching each generation's usage once.
pub fn emit(
    steps: &[Step],
    usage_by_step: &BTreeMap<u64, &Generation>,
    warnings: &mut Vec<ParseWarning>,
) -> Emitted {
    let mut emitter = Emitter {
        events: Vec::new(),
        pending: Vec::new(),
        display_model: None,
        exact_model: None,
        first_model: None,
        tool_cwd: None,
        terminal_planners: terminal_planners(steps),
        usage_by_step,
    };
    let mut first_event_of_step: BTreeMap<u64, usize> = BTreeMap::new();
    for step in steps {
        let before = emitter.events.len();
        emitter.step(step, warnings);
        if emitter.events.len() > before {
            first_event_of_step.insert(step.index, before);
        }
    }
    attach_usage(&mut emitter.events, &first_event_of_step, usage_by_step);
    Emitted {
        model: emitter.first_model,
        tool_cwd: emitter.tool_cwd,
        events: emitter.events,
    }
}

/// The planner step that ends each turn: a turn's last planner, when it made no tool call and
/// said something (the agent hands back to the user).
fn terminal_planners(steps: &[Step]) -> BTreeSet<u64> {
    let mut terminal = BTreeSet::new();
    let mut last_planner: Option<&Step> = None;
    let mut close = |planner: Option<&Step>| {
        if let Some(planner) = planner
            && planner.tool_calls().is_empty()
            && planner.text("content").is_some()
        {
            terminal.insert(planner.index);
        }
    };
    for step in steps {
        match step.kind() {
            "USER_INPUT" => close(last_planner.take()),
            "PLANNER_RESPONSE" => last_planner = Some(step),
            _ => {}
        }
    }
    close(last_planner);
    terminal
}

/// Puts each generation's usage on the first event of its planner step, or, when that step
/// left no event in the transcripts, on the nearest earlier event (else the first one), so
/// every recorded model call is counted exactly once.
fn attach_usage(
    events: &mut [RawEvent],
    first_event_of_step: &BTreeMap<u64, usize>,
    usage_by_step: &BTreeMap<u64, &Generation>,
) {
    if events.is_empty() {
        return;
    }
    for (step, generation) in usage_by_step {
        let carrier = first_event_of_step
            .range(..=step)
            .next_back()
            .map_or(0, |(_, index)| *index);
        TokenUsage::attach(&mut events[carrier], generation.usage);
    }
}

impl Emitter<'_> {
    fn step(&mut self, step: &Step, warnings: &mut Vec<ParseWarning>) {
        let kind = step.kind();
        match (step.source(), kind) {
            (_, "USER_INPUT") => self.user_input(step),
            ("USER_EXPLICIT" | "USER_IMPLICIT", _) => {
                let subtype = format!("user_{}", kind.to_ascii_lowercase());
                self.system(step, EventType::System, &subtype);
            }
            (_, "PLANNER_RESPONSE") => self.planner(step),
            // Other conversations' ids and titles, or nothing: not this session's content.
            (_, "CONVERSATION_HISTORY" | "KNOWLEDGE_ARTIFACTS") => {}
            (_, "CHECKPOINT") => self.system(step, EventType::Compaction, "checkpoint"),
            ("SYSTEM", "ERROR_MESSAGE") => match self.call_answered_at(step.index, false) {
                Some(call) => self.tool_result(step, Some(call)),
                None => self.system(step, EventType::Runtime, "error_message"),
            },
            ("SYSTEM", _) => {
                let subtype = kind.to_ascii_lowercase();
                self.system(step, EventType::System, &subtype);
            }
            ("MODEL", _) => {
                let call = self.call_answered_at(step.index, true);
                self.tool_result(step, call);
            }
            _ => {
                warnings.push(ParseWarning {
                    line: step.line,
                    message: format!(
                        "step {}: unknown Antigravity record {}/{kind}, kept as unknown",
                        step.index,
                        step.source()
                    ),
                });
                let mut event = self.base(step, format!("step-{}", step.index), EventType::Unknown);
                event.payload = Some(step.record.clone());
                self.events.push(event);
            }
        }
    }

    fn current_model(&self) -> Option<String> {
        self.exact_model
            .clone()
            .or_else(|| self.display_model.clone())
    }

    fn base(&self, step: &Step, key: String, kind: EventType) -> RawEvent {
        RawEvent {
            timestamp: step.record.get("created_at").and_then(parse_timestamp),
            originating_model: self.current_model(),
            ..RawEvent::new(key, kind, step.line)
        }
    }

    fn user_input(&mut self, step: &Step) {
        let content = step.field_str("content").unwrap_or("");
        let prompt = prompt::split(content);
        if prompt.model.is_some() {
            self.display_model = prompt.model.clone();
        }
        self.pending.clear();
        let mut event = self.base(step, format!("step-{}", step.index), EventType::UserInput);
        if prompt.request.is_empty() {
            event.kind = EventType::System;
            event.subtype = Some("user_context".to_string());
            event.text = prompt.context.unwrap_or_default();
        } else {
            event.text = prompt.request;
            event.starts_turn = true;
            event.payload = prompt.context.map(|context| json!({ "context": context }));
        }
        self.events.push(event);
    }

    fn planner(&mut self, step: &Step) {
        let generation = self.usage_by_step.get(&step.index);
        if let Some(model) = generation.and_then(|generation| generation.model.clone()) {
            self.exact_model = Some(model);
        }
        let model = self.current_model();
        if self.first_model.is_none() {
            self.first_model = model.clone();
        }
        let index = step.index;
        if let Some(thinking) = step.text("thinking") {
            let mut event = self.base(step, format!("step-{index}.thinking"), EventType::Reasoning);
            event.text = thinking;
            event.model = model.clone();
            self.events.push(event);
        }
        if let Some(content) = step.text("content") {
            let mut event = self.base(
                step,
                format!("step-{index}.reply"),
                EventType::AssistantResponse,
            );
            event.text = content;
            event.model = model.clone();
            if self.terminal_planners.contains(&index) {
                event.turn_end = Some(TurnEnd::Terminal);
            }
            self.events.push(event);
        }
        self.pending.clear();
        for (position, (name, arguments)) in step.tool_calls().into_iter().enumerate() {
            let call_id = format!("step-{index}-call-{position}");
            let mut event = self.base(step, call_id.clone(), EventType::ToolCall);
            if self.tool_cwd.is_none() {
                self.tool_cwd = arguments
                    .get("Cwd")
                    .and_then(Value::as_str)
                    .filter(|cwd| !cwd.trim().is_empty())
                    .map(str::to_string);
            }
            event.text = tool_call_text(&name, &arguments);
            event.tool_name = Some(name.clone());
            event.tool_call_id = Some(call_id.clone());
            event.payload = Some(arguments);
            self.events.push(event);
            self.pending.push(PendingCall {
                expected_step: index + 1 + position as u64,
                name,
                call_id,
                answered: false,
            });
        }
    }

    /// The call a result at `step` answers: the one expected there, else, when `late` results
    /// are accepted (a tool result after a gap), the oldest unanswered call of the last planner.
    /// An error message answers only the call expected at its step.
    fn call_answered_at(&mut self, step: u64, late: bool) -> Option<(String, String)> {
        let position = self
            .pending
            .iter()
            .position(|call| !call.answered && call.expected_step == step)
            .or_else(|| {
                self.pending
                    .iter()
                    .position(|call| late && !call.answered && call.expected_step < step)
            })?;
        let call = &mut self.pending[position];
        call.answered = true;
        Some((call.name.clone(), call.call_id.clone()))
    }

    fn tool_result(&mut self, step: &Step, call: Option<(String, String)>) {
        let kind = step.kind();
        let mut event = self.base(
            step,
            format!("step-{}", step.index),
            EventType::ToolResponse,
        );
        let (name, call_id) = match call {
            Some((name, call_id)) => (name, Some(call_id)),
            None => (kind.to_ascii_lowercase(), None),
        };
        let content = step.text("content");
        let error = step.text("error");
        event.text = [content.as_deref(), error.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        event.exit_code = content.as_deref().and_then(exit_code);
        let failed = kind == "ERROR_MESSAGE" || step.status() == "ERROR";
        event.subtype = if failed {
            Some("error".to_string())
        } else {
            status_subtype(step.status())
        };
        let mut payload = json!({ "step_type": kind, "status": step.status() });
        if let Some(code) = step.record.get("error_code") {
            payload["error_code"] = code.clone();
        }
        event.payload = Some(payload);
        event.tool_name = Some(name);
        event.tool_call_id = call_id;
        self.events.push(event);
    }

    fn system(&mut self, step: &Step, kind: EventType, subtype: &str) {
        let mut event = self.base(step, format!("step-{}", step.index), kind);
        event.text = [step.text("content"), step.text("error")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        event.subtype = Some(subtype.to_string());
        if let Some(code) = step.record.get("error_code") {
            event.payload = Some(json!({ "error_code": code }));
        }
        self.events.push(event);
    }
}

/// `running` or `canceled` for a result that did not settle as done.
fn status_subtype(status: &str) -> Option<String> {
    match status {
        "" | "DONE" => None,
        other => Some(other.to_ascii_lowercase()),
    }
}

/// The exit code a `RUN_COMMAND` result reports ("The command failed with exit code: 1",
/// "The command completed successfully").
fn exit_code(content: &str) -> Option<i64> {
    if let Some((_, rest)) = content.split_once("The command failed with exit code: ") {
        let digits: String = rest
            .chars()
            .take_while(|character| character.is_ascii_digit() || *character == '-')
            .collect();
        return digits.parse().ok();
    }
    content
        .contains("The command completed successfully")
        .then_some(0)
}
