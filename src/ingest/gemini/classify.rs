//! Message classification: what each message is (prompt, steering hint, continuation, notice,
//! cancellation, ...), which steering hints open a turn, and which replies end their turn.

use serde_json::Value;

use super::text::{has_function_responses, parts_text};
use super::{Origin, Slot};
use crate::ingest::content::strip_tagged;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Class {
    /// A prompt the human typed: opens a turn.
    UserPrompt {
        text: String,
        sent: Option<String>,
    },
    /// The task a parent agent handed to a sub-agent (first user message of a sub-agent file).
    SubagentPrompt {
        text: String,
    },
    /// A hint the human typed while the agent worked (`User steering update:` / `User hints:`).
    /// Sent with tool results it steers the running turn; sent alone after the agent had
    /// stopped (previous reply without tool calls, or a cancellation) it opens a new turn.
    Steering {
        text: String,
        new_turn: bool,
    },
    /// `System: Please continue.` injected by the CLI's next-speaker check.
    Continuation {
        text: String,
    },
    /// User message carrying only tool results (duplicates of `toolCalls[].result`) or nothing.
    NoUserText,
    Gemini,
    Info {
        text: String,
    },
    Warning {
        text: String,
    },
    Error {
        text: String,
    },
    Cancelled {
        text: String,
    },
    /// From a `$set.messages` snapshot.
    Synthetic {
        text: String,
    },
    Unknown,
}

/// How a message bears on whether the preceding reply ended its turn.
enum Lookahead {
    /// A new real prompt follows: the turn before it is over.
    NewTurn,
    /// Neutral bookkeeping (memory refresh notices, workspace listings...).
    Transparent,
    /// The agent keeps going, or the turn ended some other way.
    Blocking,
}

pub(super) fn classify(slot: &Slot, is_subagent: bool, first_user: bool) -> Class {
    if slot.origin == Origin::Unknown {
        return Class::Unknown;
    }
    let record = slot.record;
    let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
    let content = record.get("content").unwrap_or(&Value::Null);
    if slot.origin == Origin::Snapshot {
        return match kind {
            "user" | "gemini" | "qwen" => Class::Synthetic {
                text: parts_text(content),
            },
            _ => Class::Unknown,
        };
    }
    match kind {
        "user" => classify_user(record, content, is_subagent && first_user),
        // Qwen Code (a Gemini CLI fork) writes its model's messages as `qwen` in the same
        // legacy chat format.
        "gemini" | "qwen" => Class::Gemini,
        "info" | "warning" | "error" => {
            let text = parts_text(content);
            if is_cancellation(&text) {
                Class::Cancelled { text }
            } else if kind == "info" {
                Class::Info { text }
            } else if kind == "warning" {
                Class::Warning { text }
            } else {
                Class::Error { text }
            }
        }
        _ => Class::Unknown,
    }
}

fn classify_user(record: &Value, content: &Value, subagent_task: bool) -> Class {
    let sent = parts_text(content);
    let trimmed = sent.trim();
    if trimmed.starts_with("System: Please continue") {
        return Class::Continuation { text: sent };
    }
    if trimmed.starts_with("User steering update:") || trimmed.starts_with("User hints:") {
        let inner = tagged_sections(trimmed, "<user_input>", "</user_input>");
        let text = if inner.is_empty() { sent } else { inner };
        return Class::Steering {
            text,
            new_turn: false,
        };
    }
    if trimmed.is_empty() {
        return Class::NoUserText;
    }
    if subagent_task {
        return Class::SubagentPrompt { text: sent };
    }
    // The A2A server (IDE agent mode) sends the editor's state as a first text part,
    // `<session_context>…</session_context>`, before the prompt (issue #48): the prompt is
    // what follows, the whole message what was sent.
    let typed = strip_tagged(trimmed, "session_context");
    let typed = typed.trim();
    if typed.len() != trimmed.len() {
        if typed.is_empty() {
            return Class::NoUserText;
        }
        return Class::UserPrompt {
            text: typed.to_string(),
            sent: Some(sent),
        };
    }
    // `displayContent` is what the user typed (before @file expansion); `content` what was sent.
    let display = record
        .get("displayContent")
        .map(parts_text)
        .filter(|text| !text.trim().is_empty());
    match display {
        Some(display) if display.trim() != trimmed => Class::UserPrompt {
            text: display,
            sent: Some(sent),
        },
        Some(display) => Class::UserPrompt {
            text: display,
            sent: None,
        },
        None => Class::UserPrompt {
            text: sent,
            sent: None,
        },
    }
}

fn lookahead(class: &Class) -> Lookahead {
    match class {
        Class::UserPrompt { .. }
        | Class::SubagentPrompt { .. }
        | Class::Steering { new_turn: true, .. } => Lookahead::NewTurn,
        Class::Info { .. }
        | Class::Warning { .. }
        | Class::NoUserText
        | Class::Synthetic { .. } => Lookahead::Transparent,
        _ => Lookahead::Blocking,
    }
}

fn is_cancellation(text: &str) -> bool {
    let lower = text.trim().to_lowercase();
    lower.starts_with("request cancelled")
        || lower.starts_with("request canceled")
        || lower.starts_with("user cancelled")
        || lower.starts_with("operation cancelled")
}

/// The text between every `open`..`close` pair, trimmed, joined by newlines.
fn tagged_sections(text: &str, open: &str, close: &str) -> String {
    let mut sections = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        let after = &rest[start + open.len()..];
        let Some(end) = after.find(close) else {
            break;
        };
        let section = after[..end].trim();
        if !section.is_empty() {
            sections.push(section);
        }
        rest = &after[end + close.len()..];
    }
    sections.join("\n")
}

/// A steering hint without tool results, sent when the agent had stopped (nothing before it,
/// a reply without tool calls, or a cancellation), is a new request typed by the human.
pub(super) fn mark_steering_turns(slots: &[Slot], classes: &mut [Class]) {
    let mut agent_idle = true;
    for (position, slot) in slots.iter().enumerate() {
        let class = &mut classes[position];
        match class {
            Class::Steering { new_turn, .. } => {
                *new_turn = agent_idle && !has_function_responses(slot.record);
                agent_idle = false;
            }
            Class::Gemini => agent_idle = !has_tool_calls(slot.record),
            Class::Cancelled { .. } => agent_idle = true,
            other => {
                if !matches!(lookahead(other), Lookahead::Transparent) {
                    agent_idle = false;
                }
            }
        }
    }
}

fn has_tool_calls(record: &Value) -> bool {
    record
        .get("toolCalls")
        .and_then(Value::as_array)
        .is_some_and(|calls| !calls.is_empty())
}

/// Gemini messages whose reply ends its turn: a reply with no tool call that is followed (past
/// neutral info notices) by a new real prompt or by the end of the file. A reply followed by
/// another model message, a continuation, a steering hint, an error or a cancellation is not
/// proven final.
pub(super) fn terminal_replies(slots: &[Slot], classes: &[Class]) -> Vec<bool> {
    let mut terminal = vec![false; slots.len()];
    let mut next_is_turn_end = true; // end of file
    for position in (0..slots.len()).rev() {
        let class = &classes[position];
        if *class == Class::Gemini {
            let record = slots[position].record;
            let has_reply = !parts_text(record.get("content").unwrap_or(&Value::Null))
                .trim()
                .is_empty();
            terminal[position] = has_reply && !has_tool_calls(record) && next_is_turn_end;
            next_is_turn_end = false;
            continue;
        }
        match lookahead(class) {
            Lookahead::NewTurn => next_is_turn_end = true,
            Lookahead::Transparent => {}
            Lookahead::Blocking => next_is_turn_end = false,
        }
    }
    terminal
}
