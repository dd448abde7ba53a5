//! Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/...`).
//!
//! Two on-disk shapes, both written by gemini-cli's `ChatRecordingService`:
//!
//! * Whole-file JSON (`session-<time>-<id8>.json`, up to early 2026): one `ConversationRecord`
//!   `{sessionId, projectHash, startTime, lastUpdated, summary?, directories?, kind?, messages[]}`,
//!   rewritten whole on every change.
//! * Append-only JSONL (`session-<time>-<id8>.jsonl`, 2026+): a metadata header line
//!   `{sessionId, projectHash, startTime, lastUpdated, kind, directories?}`, then message records
//!   `{id, timestamp, type, content, ...}`, `{"$set": {...}}` metadata patches and
//!   `{"$rewindTo": "<message id>"}` truncation markers. It is replayed the way the CLI's
//!   `loadConversationRecord` does: a message id that is appended again (the CLI re-appends the
//!   full message every time its tool calls or tokens change) replaces the earlier copy but keeps
//!   the position of its first appearance (JS `Map.set` on an existing key); `$rewindTo` removes
//!   the target message and everything after it (an unknown target clears the conversation, as
//!   the CLI does); `$set` merges metadata.
//!
//! Sub-agent recordings live in `chats/<parentSessionId>/<id>.json[l]` with `kind: "subagent"`.
//!
//! Message types: `user`, `gemini` (with `thoughts`, `toolCalls`, `model`, `tokens`), `info`,
//! `error`, `warning`. Within one `gemini` message the CLI records the reply text first
//! (`recordMessage` at the end of the model stream) and attaches the tool calls afterwards
//! (`recordToolCalls` once they ran), so events are emitted as: reasoning (the thoughts queued
//! before the reply), the reply text, then each tool call followed by its result.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::ingest::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TurnEnd,
    parse_timestamp, tool_call_text,
};

/// Whole-file JSON session: an object with a string `sessionId` and a `messages` array.
/// (`logs.json`, the prompt log, is an array and is rejected.)
pub fn sniff_json(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    object.get("sessionId").is_some_and(Value::is_string)
        && object.get("messages").is_some_and(Value::is_array)
}

/// JSONL session: one of the first lines is the metadata header (string `sessionId` and
/// `projectHash`, no record `id`/`type`/`uuid`, unlike Claude or Qwen records).
pub fn sniff_jsonl(lines: &[JsonLine]) -> bool {
    lines.iter().take(3).any(|line| is_header(&line.value))
}

pub fn parse_json(path: &Path, value: &Value) -> ParseOutput {
    let mut output = ParseOutput::default();
    let Some(object) = value.as_object() else {
        output
            .warnings
            .push(warning(0, "not a Gemini chat recording (not an object)"));
        return output;
    };
    let mut meta = Map::new();
    for (name, field) in object {
        if name != "messages" {
            meta.insert(name.clone(), field.clone());
        }
    }
    let mut slots = Vec::new();
    match object.get("messages").and_then(Value::as_array) {
        Some(messages) => {
            for (index, message) in messages.iter().enumerate() {
                let line = index as u64 + 1;
                if message.is_object() {
                    slots.push(Slot {
                        id: message.get("id").and_then(Value::as_str),
                        record: message,
                        line,
                        origin: Origin::Message,
                        fallback_key: format!("msg.{line}"),
                    });
                } else {
                    output
                        .warnings
                        .push(warning(line, "message is not an object, skipped"));
                }
            }
        }
        None => output
            .warnings
            .push(warning(0, "Gemini chat recording without a messages array")),
    }
    let session = build_session(path, &meta, &slots, &mut output.warnings);
    output.sessions.push(session);
    output
}

pub fn parse_jsonl(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let mut output = ParseOutput::default();
    let (meta, slots) = replay(lines, &mut output.warnings);
    let session = build_session(path, &meta, &slots, &mut output.warnings);
    output.sessions.push(session);
    output
}

// ---------------------------------------------------------------------------------------------
// Replay

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A message record the CLI recorded as it happened.
    Message,
    /// A message that first appeared inside a `$set.messages` history snapshot (written when
    /// the CLI syncs its in-memory history: session bootstrap, compression, masking). It was
    /// synthesized by the CLI, not typed by the user or streamed by the model.
    Snapshot,
    /// A line the replay does not understand; kept as an `unknown` event.
    Unknown,
}

struct Slot<'a> {
    id: Option<&'a str>,
    record: &'a Value,
    line: u64,
    origin: Origin,
    /// Key used when the record has no id.
    fallback_key: String,
}

fn is_header(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    object.get("sessionId").is_some_and(Value::is_string)
        && object.get("projectHash").is_some_and(Value::is_string)
        && !object.contains_key("id")
        && !object.contains_key("type")
        && !object.contains_key("uuid")
}

fn replay<'a>(
    lines: &'a [JsonLine],
    warnings: &mut Vec<ParseWarning>,
) -> (Map<String, Value>, Vec<Slot<'a>>) {
    let mut meta = Map::new();
    let mut slots: Vec<Slot<'a>> = Vec::new();
    let mut index: HashMap<&'a str, usize> = HashMap::new();

    for line in lines {
        let Some(object) = line.value.as_object() else {
            warnings.push(warning(line.number, "JSONL line is not an object, skipped"));
            continue;
        };
        if let Some(target) = object.get("$rewindTo").and_then(Value::as_str) {
            match index.get(target) {
                Some(&position) => slots.truncate(position),
                None => {
                    warnings.push(warning(
                        line.number,
                        format!("$rewindTo target {target:?} not found; conversation cleared as the CLI does"),
                    ));
                    slots.clear();
                }
            }
            index = slots
                .iter()
                .enumerate()
                .filter_map(|(position, slot)| slot.id.map(|id| (id, position)))
                .collect();
        } else if let Some(id) = object.get("id").and_then(Value::as_str) {
            match index.get(id) {
                // Re-appended copy: newest content, position of the first appearance.
                Some(&position) => {
                    if let Some(slot) = slots.get_mut(position) {
                        slot.record = &line.value;
                        slot.line = line.number;
                        slot.origin = Origin::Message;
                    }
                }
                None => {
                    index.insert(id, slots.len());
                    slots.push(Slot {
                        id: Some(id),
                        record: &line.value,
                        line: line.number,
                        origin: Origin::Message,
                        fallback_key: format!("line.{}", line.number),
                    });
                }
            }
        } else if let Some(set) = object.get("$set") {
            match set.as_object() {
                Some(patch) => {
                    for (name, field) in patch {
                        if name == "messages" {
                            merge_snapshot(field, line.number, &mut slots, &mut index);
                        } else {
                            meta.insert(name.clone(), field.clone());
                        }
                    }
                }
                None => push_unknown(&mut slots, line),
            }
        } else if object.get("sessionId").is_some_and(Value::is_string) {
            // Metadata header (first line; the CLI writes it again only when migrating).
            for (name, field) in object {
                if name == "messages" {
                    merge_snapshot(field, line.number, &mut slots, &mut index);
                } else {
                    meta.insert(name.clone(), field.clone());
                }
            }
        } else {
            push_unknown(&mut slots, line);
        }
    }
    (meta, slots)
}

fn push_unknown<'a>(slots: &mut Vec<Slot<'a>>, line: &'a JsonLine) {
    slots.push(Slot {
        id: None,
        record: &line.value,
        line: line.number,
        origin: Origin::Unknown,
        fallback_key: format!("line.{}", line.number),
    });
}

/// `$set.messages` carries the CLI's whole in-memory history. Messages already recorded keep
/// their recorded copy (the snapshot version is a context rewrite, e.g. masked tool output) and
/// messages missing from it are kept (compression does not undo what happened); only ids never
/// seen before are added, at this point of the file, as synthetic history.
fn merge_snapshot<'a>(
    messages: &'a Value,
    line: u64,
    slots: &mut Vec<Slot<'a>>,
    index: &mut HashMap<&'a str, usize>,
) {
    let Some(messages) = messages.as_array() else {
        return;
    };
    for (position, message) in messages.iter().enumerate() {
        if !message.is_object() {
            continue;
        }
        let id = message.get("id").and_then(Value::as_str);
        if let Some(id) = id {
            if index.contains_key(id) {
                continue;
            }
            index.insert(id, slots.len());
        }
        slots.push(Slot {
            id,
            record: message,
            line,
            origin: Origin::Snapshot,
            fallback_key: format!("line.{line}.{position}"),
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Classification

#[derive(Debug, Clone, PartialEq)]
enum Class {
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

fn classify(slot: &Slot, is_subagent: bool, first_user: bool) -> Class {
    if slot.origin == Origin::Unknown {
        return Class::Unknown;
    }
    let record = slot.record;
    let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
    let content = record.get("content").unwrap_or(&Value::Null);
    if slot.origin == Origin::Snapshot {
        return match kind {
            "user" | "gemini" => Class::Synthetic {
                text: parts_text(content),
            },
            _ => Class::Unknown,
        };
    }
    match kind {
        "user" => classify_user(record, content, is_subagent && first_user),
        "gemini" => Class::Gemini,
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
fn mark_steering_turns(slots: &[Slot], classes: &mut [Class]) {
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
fn terminal_replies(slots: &[Slot], classes: &[Class]) -> Vec<bool> {
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

// ---------------------------------------------------------------------------------------------
// Session building

fn build_session(
    path: &Path,
    meta_fields: &Map<String, Value>,
    slots: &[Slot],
    warnings: &mut Vec<ParseWarning>,
) -> ParsedSession {
    let text_field = |name: &str| {
        meta_fields
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    let session_id = text_field("sessionId");
    let file_stem = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("session")
        .to_string();
    let parent_dir = path
        .parent()
        .and_then(|parent| parent.file_name())
        .and_then(|name| name.to_str())
        .map(str::to_string);
    let nested_in_chats = parent_dir.as_deref().is_some_and(|dir| dir != "chats")
        && path
            .parent()
            .and_then(Path::parent)
            .and_then(|grand| grand.file_name())
            .and_then(|name| name.to_str())
            == Some("chats");
    let is_subagent =
        meta_fields.get("kind").and_then(Value::as_str) == Some("subagent") || nested_in_chats;

    let mut meta = SessionMeta::default();
    if is_subagent {
        meta.parent_native_id = text_field("parentSessionId")
            .or_else(|| text_field("parentId"))
            .or_else(|| {
                if nested_in_chats {
                    parent_dir.clone()
                } else {
                    None
                }
            });
    }
    let native_id = match session_id {
        Some(id) if is_subagent && meta.parent_native_id.as_deref() == Some(id.as_str()) => {
            format!("{id}-{file_stem}")
        }
        Some(id) => id,
        None => {
            warnings.push(warning(
                0,
                "Gemini session without sessionId; using the file name",
            ));
            file_stem.clone()
        }
    };
    meta.summary = text_field("summary");
    meta.title = meta.summary.clone();
    meta.started_at = meta_fields.get("startTime").and_then(parse_timestamp);
    meta.cwd = meta_fields
        .get("directories")
        .and_then(Value::as_array)
        .and_then(|dirs| dirs.iter().find_map(Value::as_str))
        .map(str::to_string);

    // Classify first (turn ends need to look ahead).
    let mut classes = Vec::with_capacity(slots.len());
    let mut seen_user = false;
    for slot in slots {
        let class = classify(slot, is_subagent, !seen_user);
        if matches!(
            class,
            Class::UserPrompt { .. } | Class::SubagentPrompt { .. } | Class::Steering { .. }
        ) {
            seen_user = true;
        }
        classes.push(class);
    }
    mark_steering_turns(slots, &mut classes);
    let terminal = terminal_replies(slots, &classes);
    let recorded_calls: HashMap<&str, &str> = slots
        .iter()
        .filter(|slot| slot.origin != Origin::Unknown)
        .filter_map(|slot| slot.record.get("toolCalls").and_then(Value::as_array))
        .flatten()
        .filter_map(|call| {
            let id = call.get("id").and_then(Value::as_str)?;
            let name = call.get("name").and_then(Value::as_str).unwrap_or("");
            Some((id, name))
        })
        .collect();

    let mut builder = Builder {
        events: Vec::new(),
        model: None,
        recorded_calls,
    };
    for (position, slot) in slots.iter().enumerate() {
        builder.emit(slot, &classes[position], terminal[position], warnings);
        if meta.cwd.is_none()
            && let Class::Info { text } = &classes[position]
        {
            meta.cwd = workspace_directory(text);
        }
    }
    meta.model = builder.events.iter().find_map(|event| event.model.clone());
    if meta.started_at.is_none() {
        meta.started_at = builder.events.iter().find_map(|event| event.timestamp);
    }
    let mut events = builder.events;
    make_keys_unique(&mut events);
    ParsedSession {
        source: Source::Gemini,
        native_id,
        meta,
        events,
    }
}

/// `/directory show` output: "Current workspace directories:\n- /path\n- /other".
fn workspace_directory(text: &str) -> Option<String> {
    let rest = text.trim().strip_prefix("Current workspace directories:")?;
    rest.lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(str::trim)
        .find(|dir| !dir.is_empty())
        .map(str::to_string)
}

struct Builder<'a> {
    events: Vec<RawEvent>,
    /// Model in effect (last model seen on a gemini message).
    model: Option<String>,
    /// Tool call id -> tool name for every call recorded in a `toolCalls` array.
    recorded_calls: HashMap<&'a str, &'a str>,
}

impl Builder<'_> {
    fn event(
        &self,
        key: String,
        kind: EventType,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
        text: String,
    ) -> RawEvent {
        RawEvent {
            timestamp,
            text,
            originating_model: self.model.clone(),
            ..RawEvent::new(key, kind, line)
        }
    }

    fn emit(
        &mut self,
        slot: &Slot,
        class: &Class,
        terminal: bool,
        warnings: &mut Vec<ParseWarning>,
    ) {
        let record = slot.record;
        let key = slot
            .id
            .map(str::to_string)
            .unwrap_or_else(|| slot.fallback_key.clone());
        let timestamp = record.get("timestamp").and_then(parse_timestamp);
        let line = slot.line;
        match class {
            Class::UserPrompt { text, sent } => {
                let mut event = self.event(
                    key.clone(),
                    EventType::UserInput,
                    line,
                    timestamp,
                    text.clone(),
                );
                event.starts_turn = true;
                event.payload = sent
                    .as_ref()
                    .map(|sent| serde_json::json!({ "content": sent }));
                self.events.push(event);
                self.user_tool_results(record, &key, line, timestamp);
            }
            Class::SubagentPrompt { text } => {
                let mut event = self.event(
                    key.clone(),
                    EventType::UserInput,
                    line,
                    timestamp,
                    text.clone(),
                );
                event.starts_turn = true;
                event.subtype = Some("subagent_prompt".into());
                self.events.push(event);
                self.user_tool_results(record, &key, line, timestamp);
            }
            Class::Steering { text, new_turn } => {
                let mut event = self.event(
                    key.clone(),
                    EventType::UserInput,
                    line,
                    timestamp,
                    text.clone(),
                );
                event.starts_turn = *new_turn;
                event.subtype = Some("steering".into());
                self.events.push(event);
                self.user_tool_results(record, &key, line, timestamp);
            }
            Class::Continuation { text } => {
                let mut event = self.event(
                    key.clone(),
                    EventType::System,
                    line,
                    timestamp,
                    text.clone(),
                );
                event.subtype = Some("continuation".into());
                self.events.push(event);
                self.user_tool_results(record, &key, line, timestamp);
            }
            Class::NoUserText => {
                // Tool results sent back as a user message duplicate `toolCalls[].result`; only
                // results of calls that were never recorded are emitted.
                let before = self.events.len();
                self.user_tool_results(record, &key, line, timestamp);
                if self.events.len() == before && !has_function_responses(record) {
                    warnings.push(warning(line, "user message without text skipped"));
                }
            }
            Class::Gemini => self.gemini(record, &key, line, timestamp, terminal),
            Class::Info { text } => {
                let mut event = self.event(key, EventType::System, line, timestamp, text.clone());
                event.subtype = Some("info".into());
                self.events.push(event);
            }
            Class::Warning { text } => {
                let mut event = self.event(key, EventType::System, line, timestamp, text.clone());
                event.subtype = Some("warning".into());
                self.events.push(event);
            }
            Class::Error { text } => {
                let mut event = self.event(key, EventType::Runtime, line, timestamp, text.clone());
                event.subtype = Some("error".into());
                self.events.push(event);
            }
            Class::Cancelled { text } => {
                let mut event = self.event(key, EventType::Runtime, line, timestamp, text.clone());
                event.subtype = Some("cancelled".into());
                event.turn_end = Some(TurnEnd::Terminal);
                self.events.push(event);
            }
            Class::Synthetic { text } => {
                let kind = if text.contains("<state_snapshot>") {
                    EventType::Compaction
                } else {
                    EventType::System
                };
                let mut event = self.event(key, kind, line, timestamp, text.clone());
                event.subtype = Some("history_sync".into());
                self.events.push(event);
            }
            Class::Unknown => {
                let text = record.get("content").map(parts_text).unwrap_or_default();
                let mut event = self.event(key, EventType::Unknown, line, timestamp, text);
                event.payload = Some(record.clone());
                event.subtype = record
                    .get("type")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                self.events.push(event);
            }
        }
    }

    fn gemini(
        &mut self,
        record: &Value,
        key: &str,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
        terminal: bool,
    ) {
        let model = record
            .get("model")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|model| !model.is_empty())
            .map(str::to_string);
        if model.is_some() {
            self.model = model.clone();
        }
        if let Some(thoughts) = record.get("thoughts").and_then(Value::as_array) {
            for (index, thought) in thoughts.iter().enumerate() {
                let text = thought_text(thought);
                if text.is_empty() {
                    continue;
                }
                let time = thought
                    .get("timestamp")
                    .and_then(parse_timestamp)
                    .or(timestamp);
                let mut event = self.event(
                    format!("{key}.thought.{index}"),
                    EventType::Reasoning,
                    line,
                    time,
                    text,
                );
                event.model = model.clone();
                self.events.push(event);
            }
        }
        let reply = parts_text(record.get("content").unwrap_or(&Value::Null));
        if !reply.trim().is_empty() {
            let mut event = self.event(
                key.to_string(),
                EventType::AssistantResponse,
                line,
                timestamp,
                reply,
            );
            event.model = model.clone();
            if terminal {
                event.turn_end = Some(TurnEnd::Terminal);
            }
            self.events.push(event);
        }
        if let Some(calls) = record.get("toolCalls").and_then(Value::as_array) {
            for (index, call) in calls.iter().enumerate() {
                self.tool_call(call, index, key, line, timestamp);
            }
        }
    }

    fn tool_call(
        &mut self,
        call: &Value,
        index: usize,
        key: &str,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let call_id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_string);
        let suffix = call_id.clone().unwrap_or_else(|| index.to_string());
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty())
            .unwrap_or("unknown_tool")
            .to_string();
        let arguments = match call.get("args") {
            Some(Value::String(text)) => {
                serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.clone()))
            }
            Some(other) => other.clone(),
            None => Value::Null,
        };
        let mut event = self.event(
            format!("{key}.call.{suffix}"),
            EventType::ToolCall,
            line,
            timestamp,
            tool_call_text(&name, &arguments),
        );
        event.tool_name = Some(name.clone());
        event.tool_call_id = call_id.clone();
        event.payload = (!arguments.is_null()).then_some(arguments);
        self.events.push(event);

        let status = call.get("status").and_then(Value::as_str).unwrap_or("");
        let result = call.get("result").filter(|result| !result.is_null());
        let display = call
            .get("resultDisplay")
            .filter(|display| !display.is_null());
        let finished = matches!(status, "success" | "error" | "cancelled");
        if result.is_none() && display.is_none() && !finished {
            return; // still pending: no result recorded yet
        }
        let text = tool_result_text(result, display);
        let mut payload = Map::new();
        if !status.is_empty() {
            payload.insert("status".into(), Value::String(status.to_string()));
        }
        if let Some(Value::Object(display)) = display {
            // Structured display (file diff + stats, sub-agent progress); the whole-file before /
            // after copies are left out (the diff and the call arguments carry them).
            let kept: Map<String, Value> = display
                .iter()
                .filter(|(name, _)| !matches!(name.as_str(), "originalContent" | "newContent"))
                .map(|(name, field)| (name.clone(), field.clone()))
                .collect();
            payload.insert("resultDisplay".into(), Value::Object(kept));
        }
        let response_time = call
            .get("timestamp")
            .and_then(parse_timestamp)
            .or(timestamp);
        let mut response = self.event(
            format!("{key}.result.{suffix}"),
            EventType::ToolResponse,
            line,
            response_time,
            text,
        );
        response.exit_code = exit_code(&response.text);
        response.tool_name = Some(name);
        response.tool_call_id = call_id;
        response.payload = (!payload.is_empty()).then_some(Value::Object(payload));
        if status != "success" && !status.is_empty() {
            response.subtype = Some(status.to_string());
        }
        self.events.push(response);
    }

    /// `functionResponse` parts in a user message whose call was never recorded in `toolCalls`
    /// (recorded ones are duplicates and skipped).
    fn user_tool_results(
        &mut self,
        record: &Value,
        key: &str,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let Some(parts) = record.get("content").and_then(Value::as_array) else {
            return;
        };
        for (index, part) in parts.iter().enumerate() {
            let Some(response) = part.get("functionResponse") else {
                continue;
            };
            let call_id = response
                .get("id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty());
            if call_id.is_some_and(|id| self.recorded_calls.contains_key(id)) {
                continue;
            }
            let name = response
                .get("name")
                .and_then(Value::as_str)
                .filter(|name| !name.is_empty())
                .unwrap_or("unknown_tool")
                .to_string();
            let suffix = call_id
                .map(str::to_string)
                .unwrap_or_else(|| index.to_string());
            let text = function_response_text(response.get("response").unwrap_or(&Value::Null));
            let mut event = self.event(
                format!("{key}.result.{suffix}"),
                EventType::ToolResponse,
                line,
                timestamp,
                text,
            );
            event.exit_code = exit_code(&event.text);
            event.tool_name = Some(name);
            event.tool_call_id = call_id.map(str::to_string);
            self.events.push(event);
        }
    }
}

fn has_function_responses(record: &Value) -> bool {
    record
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|parts| {
            parts
                .iter()
                .any(|part| part.get("functionResponse").is_some())
        })
}

fn thought_text(thought: &Value) -> String {
    match thought {
        Value::String(text) => text.trim().to_string(),
        Value::Object(fields) => {
            let subject = fields
                .get("subject")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim();
            let description = fields
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim();
            match (subject.is_empty(), description.is_empty()) {
                (false, false) => format!("{subject}\n{description}"),
                (false, true) => subject.to_string(),
                (true, false) => description.to_string(),
                (true, true) => String::new(),
            }
        }
        _ => String::new(),
    }
}

/// Text of a `PartListUnion`: a string, one part, or an array of parts/strings. Thought parts and
/// function calls/responses are left out; inline/file data become a short placeholder.
fn parts_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().map(part_text).collect::<Vec<_>>().concat(),
        Value::Object(_) => part_text(value),
        _ => String::new(),
    }
}

fn part_text(part: &Value) -> String {
    match part {
        Value::String(text) => text.clone(),
        Value::Object(fields) => {
            if fields.get("thought").and_then(Value::as_bool) == Some(true) {
                return String::new();
            }
            if let Some(text) = fields.get("text").and_then(Value::as_str) {
                return text.to_string();
            }
            if let Some(data) = fields.get("inlineData") {
                let mime = data
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .unwrap_or("data");
                return format!("[inline {mime}]");
            }
            if let Some(data) = fields.get("fileData") {
                let uri = data.get("fileUri").and_then(Value::as_str).unwrap_or("");
                return format!("[file {uri}]");
            }
            String::new()
        }
        _ => String::new(),
    }
}

/// Tool output as the model received it (`functionResponse.response.output`/`.error`), else the
/// displayed result.
fn tool_result_text(result: Option<&Value>, display: Option<&Value>) -> String {
    let mut pieces = Vec::new();
    if let Some(result) = result {
        let parts: Vec<&Value> = match result {
            Value::Array(parts) => parts.iter().collect(),
            other => vec![other],
        };
        for part in parts {
            if let Some(response) = part.get("functionResponse") {
                let text = function_response_text(response.get("response").unwrap_or(&Value::Null));
                if !text.is_empty() {
                    pieces.push(text);
                }
            } else {
                let text = part_text(part);
                if !text.is_empty() {
                    pieces.push(text);
                }
            }
        }
    }
    if pieces.is_empty() {
        match display {
            Some(Value::String(text)) => pieces.push(text.clone()),
            Some(Value::Object(fields)) => {
                if let Some(diff) = fields.get("fileDiff").and_then(Value::as_str) {
                    pieces.push(diff.to_string());
                }
            }
            _ => {}
        }
    }
    pieces.join("\n")
}

fn function_response_text(response: &Value) -> String {
    match response {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Object(fields) => {
            let output = fields.get("output").and_then(Value::as_str);
            let error = fields.get("error").and_then(Value::as_str);
            match (output, error) {
                (Some(output), Some(error)) => format!("{output}\n{error}"),
                (Some(output), None) => output.to_string(),
                (None, Some(error)) => error.to_string(),
                (None, None) => response.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// `run_shell_command` output carries an `Exit Code: N` line.
fn exit_code(text: &str) -> Option<i64> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("Exit Code:"))
        .find_map(|code| code.trim().parse::<i64>().ok())
}

/// Keys come from the CLI's ids; a duplicated id (never written by the CLI) gets a suffix with
/// its source line so the key stays unique and stable.
fn make_keys_unique(events: &mut [RawEvent]) {
    let mut seen = HashSet::new();
    for event in events.iter_mut() {
        if seen.contains(&event.key) {
            let base = format!("{}.dup.{}", event.key, event.line);
            let mut candidate = base.clone();
            let mut counter = 1;
            while seen.contains(&candidate) {
                counter += 1;
                candidate = format!("{base}.{counter}");
            }
            event.key = candidate;
        }
        seen.insert(event.key.clone());
    }
}

fn warning(line: u64, message: impl Into<String>) -> ParseWarning {
    ParseWarning {
        line,
        message: message.into(),
    }
}

#[cfg(test)]
mod tests;
