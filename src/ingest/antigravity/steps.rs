//! The union of a conversation's transcripts: one record per `step_index`, the best copy
//! winning (full over compact, uncut over cut), sorted by step. Compact records have their
//! JSON-text tool arguments decoded back to values.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Form, Transcript, is_step_record};
use crate::model::ParseWarning;

/// One step of the conversation, from the transcript that had its best copy.
#[derive(Debug, Clone)]
pub struct Step {
    pub index: u64,
    pub record: Value,
    pub form: Form,
    /// Line of the record in its transcript.
    pub line: u64,
    /// True when the compact writer cut some of its strings.
    pub truncated: bool,
}

impl Step {
    pub fn kind(&self) -> &str {
        self.field_str("type").unwrap_or("")
    }

    pub fn source(&self) -> &str {
        self.field_str("source").unwrap_or("")
    }

    pub fn status(&self) -> &str {
        self.field_str("status").unwrap_or("")
    }

    pub fn field_str(&self, name: &str) -> Option<&str> {
        self.record.get(name).and_then(Value::as_str)
    }

    /// A text field, when present and not blank.
    pub fn text(&self, name: &str) -> Option<String> {
        self.field_str(name)
            .filter(|text| !text.trim().is_empty())
            .map(str::to_string)
    }

    /// The `tool_calls` of a planner step: `(name, arguments)`.
    pub fn tool_calls(&self) -> Vec<(String, Value)> {
        self.record
            .get("tool_calls")
            .and_then(Value::as_array)
            .map(|calls| {
                calls
                    .iter()
                    .map(|call| {
                        let name = call
                            .get("name")
                            .and_then(Value::as_str)
                            .filter(|name| !name.is_empty())
                            .unwrap_or("unknown_tool")
                            .to_string();
                        let arguments = call.get("args").cloned().unwrap_or(Value::Null);
                        (name, arguments)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Preference between two copies of one step: full over compact, uncut over cut.
    fn rank(&self) -> (bool, bool) {
        (self.form == Form::Full, !self.truncated)
    }
}

/// The union of `transcripts` by step, sorted by `step_index`. Lines that are not step
/// records are skipped with a warning.
pub fn union_of(transcripts: &[Transcript], warnings: &mut Vec<ParseWarning>) -> Vec<Step> {
    let mut steps: BTreeMap<u64, Step> = BTreeMap::new();
    for transcript in transcripts {
        for line in &transcript.lines {
            if !is_step_record(&line.value) {
                warnings.push(ParseWarning {
                    line: line.number,
                    message: format!(
                        "{}: not an Antigravity step record, skipped",
                        transcript.name
                    ),
                });
                continue;
            }
            let step = step_of(&line.value, transcript.form, line.number);
            match steps.get(&step.index) {
                Some(kept) if kept.rank() >= step.rank() => {}
                _ => {
                    steps.insert(step.index, step);
                }
            }
        }
    }
    steps.into_values().collect()
}

fn step_of(value: &Value, form: Form, line: u64) -> Step {
    let mut record = value.clone();
    if form == Form::Compact {
        decode_compact_arguments(&mut record);
    }
    let truncated = record
        .get("truncated_fields")
        .and_then(Value::as_array)
        .is_some_and(|fields| !fields.is_empty());
    Step {
        index: value.get("step_index").and_then(Value::as_u64).unwrap_or(0),
        record,
        form,
        line,
        truncated,
    }
}

/// The compact form writes every tool argument as JSON text (`"Cwd": "\"/root\""`,
/// `"WaitMsBeforeAsync": "2000"`): each is decoded back to its value; text that does not
/// parse (a cut string) stays as it is.
fn decode_compact_arguments(record: &mut Value) {
    let Some(calls) = record.get_mut("tool_calls").and_then(Value::as_array_mut) else {
        return;
    };
    for call in calls {
        if let Some(arguments) = call.get_mut("args").and_then(Value::as_object_mut) {
            decode_json_text_values(arguments);
        }
    }
}

fn decode_json_text_values(arguments: &mut Map<String, Value>) {
    for value in arguments.values_mut() {
        if let Value::String(text) = value
            && let Ok(decoded) = serde_json::from_str::<Value>(text)
        {
            *value = decoded;
        }
    }
}
