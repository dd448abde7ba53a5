//! The whole-file pre-pass: facts gathered before any event is emitted (call names, duplicate
//! texts, exit codes, web search pairing), and which source of a repeated reply or call is read.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::NULL;
use super::mutation::MutationIndex;
use super::parser::Parser;
use super::text::{match_text, reasoning_parts, str_field};
use super::tools::{call_name_and_id, event_call_id, is_call_output};
use crate::ingest::content::strip_tagged;

/// Facts gathered over the whole file before events are emitted (the copies and their originals
/// can come in either order).
#[derive(Default)]
pub(super) struct Index {
    /// call id -> tool name, from every call record (copied history included).
    pub(super) call_names: HashMap<String, String>,
    /// Call ids carried by the session's own call response items.
    pub(super) response_call_ids: HashSet<String>,
    /// Call ids answered by the session's own call output response items.
    pub(super) response_output_ids: HashSet<String>,
    /// The session's own response-item messages, by role and typed text (a `history_mutation`
    /// append repeats them).
    pub(super) response_messages: MessageTally,
    /// Call ids of `*_end` events (so their `*_begin` twins can be dropped).
    pub(super) ended_call_ids: HashSet<String>,
    /// `exec_command_end` exit codes by call id.
    pub(super) exit_codes: HashMap<String, i64>,
    pub(super) user_message_texts: HashSet<String>,
    pub(super) has_user_message_events: bool,
    /// TRAE CLI's `item_completed` `UserMessage` texts (its prompts when a rollout has no
    /// `user_message` event for them).
    pub(super) item_user_texts: HashSet<String>,
    /// `item_completed` `AgentMessage` texts (the `agent_message` events repeat them).
    pub(super) item_agent_texts: HashSet<String>,
    pub(super) assistant_texts: HashSet<String>,
    pub(super) reasoning_texts: HashSet<String>,
    /// web_search_call line index -> the call id it was paired with.
    pub(super) web_search_ids: HashMap<usize, String>,
    /// web_search_end call ids that were paired with a web_search_call item.
    pub(super) paired_web_search_ends: HashSet<String>,
    /// What TRAE CLI's `history_mutation` appends carry.
    pub(super) mutation: MutationIndex,
}

/// How often one source says each message, by role and typed text: a copy of one of them found
/// in another source uses one occurrence up, so the same words said twice are read twice.
#[derive(Default)]
pub(super) struct MessageTally(HashMap<(String, String), usize>);

impl MessageTally {
    pub(super) fn add(&mut self, role: &str, text: &str) {
        *self
            .0
            .entry((role.to_string(), text.to_string()))
            .or_default() += 1;
    }

    /// Uses up one occurrence of `text` said as `role`; false when none is left.
    pub(super) fn take(&mut self, role: &str, text: &str) -> bool {
        match self.0.get_mut(&(role.to_string(), text.to_string())) {
            Some(left) if *left > 0 => {
                *left -= 1;
                true
            }
            _ => false,
        }
    }
}

/// Where the text of a reply can come from, in the order the copies are trusted: deja-vu's order
/// for TRAE CLI (`docs/HARNESS-RESEARCH.md` section 2), applied per reply rather than per
/// rollout, so that a reply only a later source carries is still read. Codex writes the first
/// and the last (and `item_completed` in newer rollouts).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ReplySource {
    ResponseItem,
    HistoryMutation,
    CompletedItem,
    AgentMessageEvent,
}

impl Index {
    /// Whether a source trusted before `source` carries a reply with this text, which makes this
    /// one its copy. (A `history_mutation` reply is matched against the response items by
    /// occurrence instead: [`MessageTally`].)
    pub(super) fn reply_read_before(&self, source: ReplySource, text: &str) -> bool {
        [
            (ReplySource::ResponseItem, &self.assistant_texts),
            (ReplySource::HistoryMutation, &self.mutation.reply_texts),
            (ReplySource::CompletedItem, &self.item_agent_texts),
        ]
        .into_iter()
        .any(|(earlier, texts)| earlier < source && texts.contains(text))
    }

    /// Whether a response item or a `history_mutation` append carries the call `id`: a tool
    /// lifecycle event (`exec_command_end`, ...) of it is then a copy.
    pub(super) fn call_in_items(&self, id: &str) -> bool {
        self.response_call_ids.contains(id) || self.mutation.call_ids.contains(id)
    }

    /// Whether a record read before `item_completed` turn items carries the call `id`: a call
    /// item, or a tool lifecycle event (which stands for the whole call).
    pub(super) fn call_before_turn_items(&self, id: &str) -> bool {
        self.call_in_items(id) || self.ended_call_ids.contains(id)
    }

    /// Whether the result of call `id` is read from a record other than a `history_mutation`
    /// append: a call output response item, or a tool lifecycle event that stands for the whole
    /// call because no call item carries it.
    pub(super) fn result_outside_mutations(&self, id: &str) -> bool {
        self.response_output_ids.contains(id)
            || (self.ended_call_ids.contains(id) && !self.call_in_items(id))
    }
}

impl Parser<'_, '_, '_> {
    pub(super) fn build_index(&mut self) {
        let records = self.records;
        let mut web_search_calls = Vec::new();
        let mut web_search_ends: Vec<(String, Value)> = Vec::new();
        let mut own_messages = Vec::new();
        for (position, record) in records.iter().enumerate() {
            let own = self.is_own(position);
            let payload = record.payload;
            match (record.kind, record.payload_type()) {
                ("response_item", item) => {
                    if let Some((name, id)) = call_name_and_id(payload) {
                        if let Some(id) = id {
                            self.index.call_names.insert(id.clone(), name);
                            if own {
                                self.index.response_call_ids.insert(id);
                            }
                        }
                    } else if own && item == "message" {
                        own_messages.push(position);
                        if str_field(payload, "role") == Some("assistant") {
                            let text = match_text(payload.get("content").unwrap_or(&NULL));
                            // Codex Desktop appends the memories a reply cites to its text
                            // (`<oai-mem-citation>…`); its `agent_message` twin carries them
                            // apart (`memory_citation`), so the twins match without them.
                            let uncited = strip_tagged(&text, "oai-mem-citation");
                            if uncited.trim() != text {
                                self.index
                                    .assistant_texts
                                    .insert(uncited.trim().to_string());
                            }
                            self.index.assistant_texts.insert(text);
                        }
                    } else if own && item == "reasoning" {
                        for text in reasoning_parts(payload) {
                            self.index.reasoning_texts.insert(text.trim().to_string());
                        }
                    } else if own
                        && is_call_output(item)
                        && let Some(id) = str_field(payload, "call_id")
                    {
                        self.index.response_output_ids.insert(id.to_string());
                    }
                    if own && item == "web_search_call" {
                        web_search_calls.push(position);
                    }
                }
                ("event_msg", event) if own => {
                    let call_id = event_call_id(payload);
                    match event {
                        "item_completed" => {
                            let item = payload.get("item").unwrap_or(&Value::Null);
                            match str_field(item, "type") {
                                Some("UserMessage") => {
                                    self.index
                                        .item_user_texts
                                        .insert(user_message_item_text(item));
                                }
                                Some("AgentMessage") => {
                                    let content = item.get("content").unwrap_or(&NULL);
                                    self.index.item_agent_texts.insert(match_text(content));
                                }
                                _ => {}
                            }
                        }
                        "user_message" => {
                            self.index.has_user_message_events = true;
                            let text = str_field(payload, "message").unwrap_or("");
                            self.index
                                .user_message_texts
                                .insert(text.trim().to_string());
                        }
                        "exec_command_end" => {
                            if let (Some(id), Some(code)) =
                                (call_id, payload.get("exit_code").and_then(Value::as_i64))
                            {
                                self.index.exit_codes.insert(id.to_string(), code);
                            }
                        }
                        "web_search_end" => {
                            if let Some(id) = call_id {
                                web_search_ends.push((
                                    id.to_string(),
                                    payload.get("action").cloned().unwrap_or(Value::Null),
                                ));
                            }
                        }
                        _ => {}
                    }
                    if let Some(id) = call_id
                        && (event.ends_with("_end") || event.ends_with("_response"))
                    {
                        self.index.ended_call_ids.insert(id.to_string());
                    }
                }
                ("history_mutation", _) if own => self.index.index_history_mutation(payload),
                _ => {}
            }
        }
        // Only a `history_mutation` append repeats the response-item messages: tally them
        // for rollouts that have one (TRAE CLI's), not for every Codex rollout.
        if self.index.mutation.has_appends {
            for position in own_messages {
                let payload = records[position].payload;
                let role = str_field(payload, "role").unwrap_or("");
                let text = match_text(payload.get("content").unwrap_or(&NULL));
                self.index.response_messages.add(role, &text);
            }
        }
        // Pair each web_search_call item (which usually has no id on disk) with the
        // web_search_end event of the same search: same id, else same action.
        let mut claimed = HashSet::new();
        for position in web_search_calls {
            let payload = records[position].payload;
            let own_id = str_field(payload, "call_id").or_else(|| str_field(payload, "id"));
            let action = payload.get("action").unwrap_or(&NULL);
            let paired = web_search_ends
                .iter()
                .find(|(id, _)| Some(id.as_str()) == own_id && !claimed.contains(id))
                .or_else(|| {
                    web_search_ends
                        .iter()
                        .find(|(id, end_action)| end_action == action && !claimed.contains(id))
                })
                .map(|(id, _)| id.clone());
            let id = str_field(payload, "call_id")
                .map(str::to_string)
                .or_else(|| paired.clone())
                .or_else(|| own_id.map(str::to_string));
            if let Some(paired) = paired {
                claimed.insert(paired.clone());
                self.index.paired_web_search_ends.insert(paired);
            }
            if let Some(id) = id {
                self.index
                    .call_names
                    .insert(id.clone(), "web_search".to_string());
                self.index.response_call_ids.insert(id.clone());
                self.index.web_search_ids.insert(position, id);
            }
        }
    }
}

/// The text of an `item_completed` `UserMessage`: its `text` blocks joined as typed (TRAE
/// splits one prompt into several blocks; botmux `itemCompletedUserText`).
pub(super) fn user_message_item_text(item: &Value) -> String {
    item.get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|block| str_field(block, "text"))
                .collect::<String>()
        })
        .unwrap_or_default()
        .trim()
        .to_string()
}
