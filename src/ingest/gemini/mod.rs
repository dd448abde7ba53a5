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
//!
//! Layout: this file sniffs and parses both shapes into message slots; `replay` replays JSONL
//! (`$set`, `$rewindTo`); `classify` classifies messages and finds turn ends; `session`
//! assembles the session; `messages` and `tools` emit the events; `text` holds the text helpers.

mod classify;
mod messages;
mod replay;
mod session;
mod text;
mod tools;

use std::path::Path;

use serde_json::{Map, Value};

use crate::ingest::lines::JsonLine;
use crate::model::{ParseOutput, ParseWarning};
use replay::{is_header, replay};
use session::build_session;

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

fn warning(line: u64, message: impl Into<String>) -> ParseWarning {
    ParseWarning {
        line,
        message: message.into(),
    }
}

#[cfg(test)]
mod tests;
