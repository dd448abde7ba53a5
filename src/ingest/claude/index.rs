//! The first pass over the whole file: record ancestry, tool names, sub-agent prompts, turn
//! ends, and the markers that reveal resume/compaction replays.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::text::{is_sidechain, session_id_of, str_field, str_field_of};
use crate::ingest::lines::JsonLine;

/// Facts gathered in a first pass over the whole file.
#[derive(Default)]
pub(super) struct Index {
    /// uuid -> (isSidechain, parentUuid) of every record with a uuid.
    pub(super) records: HashMap<String, (bool, Option<String>)>,
    /// tool_use id -> tool name.
    pub(super) tool_names: HashMap<String, String>,
    /// Task/Agent tool_use prompt -> (subagent_type, description), to name inline sub-agents.
    pub(super) task_prompts: HashMap<String, (Option<String>, Option<String>)>,
    /// message ids with `stop_reason: end_turn` on any of their lines.
    pub(super) end_turn_messages: HashSet<String>,
    /// sessionId of non-sidechain conversation records, in file order, deduplicated.
    pub(super) main_session_ids: Vec<String>,
    /// First sessionId of any record.
    pub(super) any_session_id: Option<String>,
    /// Line where each assistant message id first appears.
    pub(super) first_message_line: HashMap<String, u64>,
    /// parentUuid -> message ids of the assistant records answering it.
    pub(super) answers: HashMap<String, Vec<String>>,
    /// Line where each tool_use id first gets a tool_result.
    pub(super) first_result_line: HashMap<String, u64>,
}

impl Index {
    pub(super) fn build(lines: &[JsonLine]) -> Index {
        let mut index = Index::default();
        for line in lines {
            let Some(record) = line.value.as_object() else {
                continue;
            };
            let sidechain = is_sidechain(record);
            if let Some(uuid) = str_field(record, "uuid") {
                let parent = str_field(record, "parentUuid").map(str::to_string);
                index
                    .records
                    .entry(uuid.to_string())
                    .or_insert((sidechain, parent));
            }
            if index.any_session_id.is_none() {
                index.any_session_id = session_id_of(record).map(str::to_string);
            }
            let kind = str_field(record, "type").unwrap_or_default();
            if !sidechain
                && matches!(kind, "user" | "assistant" | "system" | "attachment")
                && let Some(session_id) = session_id_of(record)
                && !index.main_session_ids.iter().any(|id| id == session_id)
            {
                index.main_session_ids.push(session_id.to_string());
            }
            let Some(message) = record.get("message").and_then(Value::as_object) else {
                continue;
            };
            index.note_replay_markers(kind, record, message, line.number);
            if str_field(message, "stop_reason") == Some("end_turn")
                && let Some(id) = str_field(message, "id")
            {
                index.end_turn_messages.insert(id.to_string());
            }
            let Some(blocks) = message.get("content").and_then(Value::as_array) else {
                continue;
            };
            for block in blocks {
                if !matches!(
                    str_field_of(block, "type"),
                    Some("tool_use" | "server_tool_use")
                ) {
                    continue;
                }
                let (Some(id), Some(name)) =
                    (str_field_of(block, "id"), str_field_of(block, "name"))
                else {
                    continue;
                };
                index.tool_names.insert(id.to_string(), name.to_string());
                if matches!(name, "Task" | "Agent")
                    && let Some(input) = block.get("input")
                    && let Some(prompt) = str_field_of(input, "prompt")
                {
                    index.task_prompts.insert(
                        prompt.trim().to_string(),
                        (
                            str_field_of(input, "subagent_type").map(str::to_string),
                            str_field_of(input, "description").map(str::to_string),
                        ),
                    );
                }
            }
        }
        index
    }

    fn note_replay_markers(
        &mut self,
        kind: &str,
        record: &Map<String, Value>,
        message: &Map<String, Value>,
        line_number: u64,
    ) {
        if kind == "assistant"
            && let Some(message_id) = str_field(message, "id")
        {
            self.first_message_line
                .entry(message_id.to_string())
                .or_insert(line_number);
            if let Some(parent) = str_field(record, "parentUuid") {
                self.answers
                    .entry(parent.to_string())
                    .or_default()
                    .push(message_id.to_string());
            }
        }
        if kind == "user"
            && let Some(blocks) = message.get("content").and_then(Value::as_array)
        {
            for block in blocks {
                if str_field_of(block, "type") == Some("tool_result")
                    && let Some(id) = str_field_of(block, "tool_use_id")
                {
                    self.first_result_line
                        .entry(id.to_string())
                        .or_insert(line_number);
                }
            }
        }
    }

    /// A user record re-written under a new uuid by a resume or compaction replay: a prompt
    /// answered by an assistant message first seen earlier in the file, or tool results that
    /// an earlier line already delivered.
    pub(super) fn is_replayed_user_record(
        &self,
        uuid: Option<&str>,
        record: &Map<String, Value>,
        line_number: u64,
    ) -> bool {
        let answered_earlier =
            uuid.and_then(|uuid| self.answers.get(uuid))
                .is_some_and(|message_ids| {
                    message_ids.iter().any(|id| {
                        self.first_message_line
                            .get(id)
                            .is_some_and(|&first| first < line_number)
                    })
                });
        let result_ids: Vec<&str> = record
            .get("message")
            .and_then(|message| message.get("content"))
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|block| str_field_of(block, "type") == Some("tool_result"))
                    .filter_map(|block| str_field_of(block, "tool_use_id"))
                    .collect()
            })
            .unwrap_or_default();
        let results_delivered_earlier = !result_ids.is_empty()
            && result_ids.iter().all(|id| {
                self.first_result_line
                    .get(*id)
                    .is_some_and(|&first| first < line_number)
            });
        // Claude Code 2.1.1xx+ runs tools while a response still streams: one API message is
        // written as several assistant records with the results of its first calls between
        // them, so a record of new results is answered by a message first seen before it
        // without being a replay (issue #48). Results are replayed only when delivered before.
        if result_ids.is_empty() {
            answered_earlier
        } else {
            results_delivered_earlier
        }
    }

    /// The first record of the sidechain chain `uuid` belongs to.
    pub(super) fn sidechain_root<'a>(&'a self, uuid: &'a str) -> &'a str {
        let mut current = uuid;
        let mut steps = 0usize;
        while let Some((_, Some(parent))) = self.records.get(current) {
            match self.records.get(parent.as_str()) {
                Some((true, _)) if steps < self.records.len() => {
                    current = parent.as_str();
                    steps += 1;
                }
                _ => break,
            }
        }
        current
    }
}
