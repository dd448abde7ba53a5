//! `item_completed` turn items: replies no earlier source carries, plans, TRAE CLI's prompts,
//! and the file changes and MCP calls no other record carries (TRAE CLI can log a file change
//! only there; Codex's have a call item or lifecycle event with the same call id).

use serde_json::{Value, json};

use super::index::{ReplySource, user_message_item_text};
use super::parser::Parser;
use super::text::{compact_json, content_text, match_text, pick, str_field};
use super::tools::ToolOutput;
use super::{Line, NULL};
use crate::model::{EventType, Source, TurnEnd};

/// What a file change item did to each file (`delete /w/a.go`), one line each.
fn file_change_summary(item: &Value) -> String {
    item.get("changes")
        .and_then(Value::as_object)
        .map(|changes| {
            changes
                .iter()
                .map(|(path, change)| {
                    let kind = str_field(change, "type").unwrap_or("change");
                    format!("{kind} {path}")
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The outcome of an MCP call item: its result's content, else its error.
fn mcp_item_output(item: &Value) -> ToolOutput {
    let result = item.get("result").filter(|result| !result.is_null());
    let error = item.get("error").filter(|error| !error.is_null());
    match (result, error) {
        (Some(result), _) => ToolOutput {
            text: content_text(result.get("content").unwrap_or(&NULL)),
            extras: result
                .get("isError")
                .map(|error| json!({"is_error": error})),
            exit_code: None,
        },
        (None, Some(error)) => ToolOutput {
            text: str_field(error, "message").map_or_else(|| compact_json(error), str::to_string),
            extras: Some(json!({"is_error": true})),
            exit_code: None,
        },
        (None, None) => ToolOutput {
            text: String::new(),
            extras: Some(pick(item, &["status"])),
            exit_code: None,
        },
    }
}

impl Parser<'_, '_, '_> {
    /// TRAE CLI's rollouts carry its prompts as `item_completed` `UserMessage` items (and as
    /// `history_mutation` `display_completions`) and write its own runtime injections
    /// (environment, process limits) as user-role response items: such a rollout's prompts are
    /// those items (deja-vu `docs/registry/trae.md`, botmux `traex-transcript.ts`). Codex's own
    /// copies stay as they were.
    pub(super) fn reads_trae_prompts(&self) -> bool {
        self.source == Source::TraeCli
            && !(self.index.item_user_texts.is_empty()
                && self.index.mutation.prompt_texts.is_empty())
    }

    /// `item_completed` (newer rollouts) repeats conversation items; only content no earlier
    /// source carries is kept.
    pub(super) fn on_item_completed(&mut self, record: &Line<'_>) {
        let item = record.payload.get("item").unwrap_or(&NULL);
        match str_field(item, "type").unwrap_or("") {
            "AgentMessage" => {
                let content = item.get("content").unwrap_or(&NULL);
                let typed = match_text(content);
                if !self
                    .index
                    .reply_read_before(ReplySource::CompletedItem, &typed)
                {
                    let phase = str_field(item, "phase").map(str::to_string);
                    let final_answer = phase.as_deref() == Some("final_answer");
                    let event =
                        self.push(record, EventType::AssistantResponse, content_text(content));
                    event.subtype = phase;
                    if final_answer {
                        event.turn_end = Some(TurnEnd::Terminal);
                    }
                }
            }
            "Plan" => {
                let text = str_field(item, "text").unwrap_or("").to_string();
                let event = self.push(record, EventType::System, text);
                event.subtype = Some("plan".to_string());
            }
            // TRAE CLI's prompt, when no `user_message` event carries the same words (its
            // user-role response items are then its own injections: `on_message`).
            "UserMessage" if self.reads_trae_prompts() => {
                let text = user_message_item_text(item);
                if !text.is_empty() && !self.index.user_message_texts.contains(&text) {
                    let event = self.push(record, EventType::UserInput, text);
                    event.starts_turn = true;
                }
            }
            "FileChange" => self.on_file_change_item(record, item),
            "McpToolCall" => self.on_mcp_call_item(record, item),
            // UserMessage (Codex's), Reasoning, CommandExecution, web search extensions...:
            // copies of the user_message event, response items and tool lifecycle events.
            _ => {}
        }
    }

    /// The call id of a tool turn item that no other record carries and that is not read yet.
    fn unread_tool_item_id(&self, item: &Value) -> Option<String> {
        str_field(item, "id")
            .filter(|id| {
                !self.index.call_before_turn_items(id) && !self.emitted_call_ids.contains(*id)
            })
            .map(str::to_string)
    }

    /// A file change (what `apply_patch` did) that only this item records: its call and outcome.
    fn on_file_change_item(&mut self, record: &Line<'_>, item: &Value) {
        let Some(call_id) = self.unread_tool_item_id(item) else {
            return;
        };
        let files: Vec<Value> = item
            .get("changes")
            .and_then(Value::as_object)
            .map(|changes| changes.keys().map(|path| json!(path)).collect())
            .unwrap_or_default();
        let name = "apply_patch";
        self.push_tool_call(record, name, Some(call_id.clone()), json!({"files": files}));
        let stdout = str_field(item, "stdout").unwrap_or("");
        let stderr = str_field(item, "stderr").unwrap_or("");
        let printed = format!("{stdout}{stderr}");
        let output = ToolOutput {
            text: if printed.is_empty() {
                file_change_summary(item)
            } else {
                printed
            },
            extras: Some(pick(item, &["status"])),
            exit_code: None,
        };
        self.push_tool_response(record, name.to_string(), Some(call_id), output);
    }

    /// An MCP call that only this item records: its call and outcome.
    fn on_mcp_call_item(&mut self, record: &Line<'_>, item: &Value) {
        let Some(call_id) = self.unread_tool_item_id(item) else {
            return;
        };
        let name = format!(
            "mcp__{}__{}",
            str_field(item, "server").unwrap_or("server"),
            str_field(item, "tool").unwrap_or("tool")
        );
        let arguments = item.get("arguments").cloned().unwrap_or(Value::Null);
        self.push_tool_call(record, &name, Some(call_id.clone()), arguments);
        self.push_tool_response(record, name, Some(call_id), mcp_item_output(item));
    }
}
