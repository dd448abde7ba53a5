//! CodeBuddy Code (Tencent's terminal agent, `codebuddy`) and WorkBuddy (Tencent's desktop app,
//! which runs the same agent under its own home) session transcripts.
//!
//! Layout, like Claude Code's but with other records: `<home>/projects/<cwd-slug>/<session
//! id>.jsonl`, one file per session, sub-agents in `<cwd-slug>/<session id>/subagents/agent-<id>
//! .jsonl` (large tool outputs in `<session id>/tool-results/*.txt`, not JSON, never read). The
//! CodeBuddy home is `$CODEBUDDY_CONFIG_DIR`, else `~/.codebuddy`; WorkBuddy's is
//! `$WORKBUDDY_CONFIG_DIR`, else `~/.workbuddy` (workbuddy.cn) and `~/.workbuddy-ai` (WorkBuddy
//! AI). The records are the same in both, so a transcript is WorkBuddy's by its place (under the
//! `projects` folder of a WorkBuddy home), as TRAE CLI's rollouts are (`ingest::trae`).
//!
//! Each line is one OpenAI Responses-style item with `id`, `timestamp` (epoch milliseconds),
//! `sessionId`, `cwd` and `providerData`:
//! - `message` with `role` `user` (`content` parts `input_text`) or `assistant` (`output_text`);
//!   a user record flagged in `providerData` (`isMeta`, `skipRun`, `isCompactInternal`,
//!   `teammateMessage`, `agent: "compact"`) never was the user's words (hook output, local
//!   commands, the `/compact` instruction) and is context; `isCompacted`, `isSummary` or
//!   `compactType` mark a compaction summary. WorkBuddy wraps the typed prompt in
//!   `<user_query>` after a `<system-reminder>` block of IDE context; the user's words are the
//!   query, the whole text is kept as payload. The source rewrites a user message once (a second
//!   record with the same `id`): it is read once.
//! - `function_call {callId, name, arguments}` (arguments as JSON text) and
//!   `function_call_result {callId, name, status, output {type: text, text}}`; a result fails
//!   with a `status` of `error`/`failed`, a `providerData.toolResult.error`, or a non-zero
//!   `Exit Code: N` at the end of a shell output (the status stays `completed` for those).
//! - `reasoning` (`rawContent` parts `reasoning_text`), `topic`, `ai-title`, `custom-title`
//!   (title: the newest custom title, else AI title, else topic, as CodeBuddy orders them),
//!   `summary`, and bookkeeping (`turn-metrics`, `file-history-snapshot`, `session-meta`,
//!   `resend-fork-notice`).
//!
//! Token usage sits on the record of each model call (an assistant message or a function call)
//! in `providerData.usage` (`inputTokens`, `outputTokens`, `cacheReadInputTokens`,
//! `cacheCreationInputTokens`, `reasoningTokens`, or their snake_case forms), or, from
//! OpenAI-compatible models, `providerData.rawUsage` (`prompt_tokens`, `completion_tokens`,
//! `prompt_tokens_details.cached_tokens`, `completion_tokens_details.reasoning_tokens`), or in
//! the Anthropic-shaped `message.usage` the CLI also writes (`input_tokens`, `output_tokens`,
//! `cache_read_input_tokens`); the records of one call share `providerData.messageId`, whose usage counts once. The prompt
//! count includes the cache reads (measured against `turn-metrics.tokenDelta` by a public
//! reader); a count smaller than its cache reads cannot include them, and they are added.
//!
//! Sources (no producer source is public; readers that checked live sessions): deja-vu's
//! CodeBuddy registry page (verified 2026-10-05 on CodeBuddy Code 2.161.2 and WorkBuddy 5.6.2:
//! store, variables, records, flags, title order, `Exit Code`, `codebuddy -r <id>`, MCP files;
//! a `docs/registry/codebuddy.md` newer than the mirror esker read its other pages from),
//! agentsview's `internal/parser/workbuddy.go` (records, `providerData.usage`/`rawUsage`,
//! sub-agent layout), and readers in the code index that report the repeated user record, the
//! `<user_query>` wrapper and usage shared by `messageId`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::content::{
    UNKNOWN_TOOL, arguments_of, mark_terminal_replies, only_tagged_blocks, plain_event,
    reported_exit_code, strip_tagged, tag_content, text_field, text_of_blocks, tool_call,
    tool_response,
};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// The environment variables that move CodeBuddy's and WorkBuddy's homes.
pub const HOME_VARS: [&str; 2] = ["CODEBUDDY_CONFIG_DIR", "WORKBUDDY_CONFIG_DIR"];

/// WorkBuddy's default homes under `~`: workbuddy.cn's and WorkBuddy AI's.
const WORKBUDDY_HOMES: [&str; 2] = [".workbuddy", ".workbuddy-ai"];

/// Record types that carry nothing to index.
const BOOKKEEPING: [&str; 4] = [
    "turn-metrics",
    "file-history-snapshot",
    "session-meta",
    "resend-fork-notice",
];

/// Titles CodeBuddy writes before it has one.
const PLACEHOLDER_TITLES: [&str; 2] = ["(No content)", "New Session"];

/// `providerData` flags of user-role records that are not the user's words.
const CONTEXT_FLAGS: [&str; 4] = ["isMeta", "skipRun", "isCompactInternal", "teammateMessage"];

/// `providerData` flags of a compaction summary.
const COMPACTION_FLAGS: [&str; 3] = ["isCompacted", "isSummary", "compactType"];

/// Leading tags of user text that a harness injected (slash-command echoes, notifications).
const INJECTED_PREFIXES: [&str; 6] = [
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<task-notification>",
    "<teammate-message",
    "Caveat:",
];

const REMINDER_TAG: &str = "system-reminder";
const QUERY_TAG: &str = "user_query";

/// CodeBuddy's home: `$CODEBUDDY_CONFIG_DIR`, else `~/.codebuddy`.
pub fn codebuddy_home(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> PathBuf {
    env("CODEBUDDY_CONFIG_DIR").unwrap_or_else(|| home.join(".codebuddy"))
}

/// WorkBuddy's homes: `$WORKBUDDY_CONFIG_DIR`, `~/.workbuddy` and `~/.workbuddy-ai`.
pub fn workbuddy_homes(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let mut homes: Vec<PathBuf> = env("WORKBUDDY_CONFIG_DIR").into_iter().collect();
    for name in WORKBUDDY_HOMES {
        let default = home.join(name);
        if !homes.contains(&default) {
            homes.push(default);
        }
    }
    homes
}

/// The `projects` folders both harnesses write to (existing or not), each with its harness.
pub fn project_folders(
    home: &Path,
    env: &impl Fn(&str) -> Option<PathBuf>,
) -> Vec<(Source, PathBuf)> {
    let mut folders = vec![(
        Source::CodeBuddy,
        codebuddy_home(home, env).join("projects"),
    )];
    folders.extend(
        workbuddy_homes(home, env)
            .into_iter()
            .map(|workbuddy| (Source::WorkBuddy, workbuddy.join("projects"))),
    );
    folders
}

/// Whether a transcript at `path` is WorkBuddy's: under the `projects` folder of a
/// `.workbuddy` / `.workbuddy-ai` home, or of the home this process's `$WORKBUDDY_CONFIG_DIR`
/// names.
pub fn is_workbuddy_path(path: &Path) -> bool {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    is_workbuddy_path_with(path, &env)
}

fn is_workbuddy_path_with(path: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> bool {
    let moved = env("WORKBUDDY_CONFIG_DIR");
    path.ancestors().skip(1).any(|folder| {
        let Some(home) = folder
            .parent()
            .filter(|_| folder.file_name() == Some("projects".as_ref()))
        else {
            return false;
        };
        let default = home
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| WORKBUDDY_HOMES.contains(&name));
        default || moved.as_deref() == Some(home)
    })
}

/// A CodeBuddy transcript: an item record (`message` with a top-level `role`, a
/// `function_call`/`function_call_result` with a `callId`) that carries CodeBuddy's identity
/// (`sessionId`, or an epoch-millisecond `timestamp`), which Codex's legacy items never do.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().any(|line| {
        let record = &line.value;
        let item = match record.get("type").and_then(Value::as_str) {
            Some("message") => record.get("role").is_some_and(Value::is_string),
            Some("function_call" | "function_call_result") => record.get("callId").is_some(),
            _ => false,
        };
        let identity = record.get("sessionId").is_some_and(Value::is_string)
            || record.get("timestamp").is_some_and(Value::is_i64);
        item && identity && record.get("payload").is_none()
    })
}

/// Parses one transcript written by `source` (CodeBuddy Code or WorkBuddy).
pub fn parse(path: &Path, lines: &[JsonLine], source: Source) -> ParseOutput {
    let mut parser = Parser::default();
    for line in lines {
        parser.record(line);
    }
    mark_terminal_replies(&mut parser.events);
    let mut meta = std::mem::take(&mut parser.meta);
    meta.title = parser.titles.best();
    let stem = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("session")
        .to_string();
    meta.parent_native_id = subagent_parent(path);
    ParseOutput {
        sessions: vec![ParsedSession {
            source,
            native_id: stem,
            meta,
            events: parser.events,
        }],
        // Lines that are not JSON are counted by the line splitter; unknown records are kept.
        warnings: Vec::new(),
    }
}

/// The session a sub-agent transcript (`<session id>/subagents/<agent>.jsonl`) belongs to.
fn subagent_parent(path: &Path) -> Option<String> {
    let folder = path.parent()?;
    (folder.file_name()? == "subagents")
        .then(|| folder.parent()?.file_name()?.to_str().map(str::to_string))
        .flatten()
}

/// The newest title of each kind CodeBuddy writes.
#[derive(Default)]
struct Titles {
    custom: Option<String>,
    ai: Option<String>,
    topic: Option<String>,
}

impl Titles {
    fn best(&mut self) -> Option<String> {
        self.custom
            .take()
            .or_else(|| self.ai.take())
            .or_else(|| self.topic.take())
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    meta: SessionMeta,
    titles: Titles,
    /// Call id -> tool name.
    calls: HashMap<String, String>,
    /// Event keys given so far.
    keys: HashSet<String>,
    /// Ids of the user messages read (the source repeats one).
    user_ids: HashSet<String>,
    /// `providerData.messageId`s whose usage was counted.
    counted_calls: HashSet<String>,
}

/// Where a record sits: its event key, line and time.
struct At {
    key: String,
    line: u64,
    time: Option<DateTime<Utc>>,
}

impl Parser {
    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        if let Some(cwd) = text_field(record, "cwd") {
            self.meta.cwd.get_or_insert(cwd);
        }
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let at = At {
            key: self.key_of(record, line.number),
            line: line.number,
            time: record.get("timestamp").and_then(parse_timestamp),
        };
        let first_event = self.events.len();
        match kind {
            "message" => self.message(&at, record),
            "function_call" => self.function_call(&at, record),
            "function_call_result" => self.function_result(&at, record),
            "reasoning" => self.reasoning(&at, record),
            "topic" => set_title(&mut self.titles.topic, record, "topic"),
            "ai-title" => set_title(&mut self.titles.ai, record, "aiTitle"),
            "custom-title" => set_title(&mut self.titles.custom, record, "customTitle"),
            "summary" => {
                if let Some(summary) = text_field(record, "summary") {
                    self.meta.summary = Some(summary);
                }
            }
            kind if BOOKKEEPING.contains(&kind) => {}
            other => self.unknown(at, record, other),
        }
        self.model_call(record, first_event);
    }

    /// The record's `id` when no earlier record took it, else its line.
    fn key_of(&mut self, record: &Value, line: u64) -> String {
        text_field(record, "id")
            .filter(|id| !self.keys.contains(id))
            .unwrap_or_else(|| format!("line.{line}"))
    }

    fn push(&mut self, event: RawEvent) {
        self.keys.insert(event.key.clone());
        self.events.push(event);
    }

    fn message(&mut self, at: &At, record: &Value) {
        let content = record.get("content").unwrap_or(&Value::Null);
        match record.get("role").and_then(Value::as_str).unwrap_or("") {
            "user" => self.user(at, record, &parts_text(content)),
            "assistant" => {
                let text = parts_text(content);
                if !text.trim().is_empty() {
                    let key = at.key.clone();
                    let reply = plain_event(
                        key,
                        EventType::AssistantResponse,
                        at.line,
                        at.time,
                        text,
                        None,
                    );
                    self.push(reply);
                }
            }
            role => {
                let text = parts_text(content);
                if !text.trim().is_empty() {
                    let key = at.key.clone();
                    self.push(plain_event(
                        key,
                        EventType::System,
                        at.line,
                        at.time,
                        text,
                        Some(role),
                    ));
                }
            }
        }
    }

    fn user(&mut self, at: &At, record: &Value, text: &str) {
        if let Some(id) = text_field(record, "id")
            && !self.user_ids.insert(id)
        {
            // The source's rewrite of a user message it already wrote.
            return;
        }
        if text.trim().is_empty() {
            return;
        }
        let flags = record.get("providerData").unwrap_or(&Value::Null);
        let flagged = |names: &[&str]| {
            names
                .iter()
                .any(|name| flags.get(*name).is_some_and(|flag| !is_off(flag)))
        };
        if flagged(&COMPACTION_FLAGS) {
            let event = plain_event(
                at.key.clone(),
                EventType::Compaction,
                at.line,
                at.time,
                text.trim().to_string(),
                Some("compact_summary"),
            );
            self.push(event);
            return;
        }
        let typed = typed_words(text);
        let injected = flagged(&CONTEXT_FLAGS)
            || flags.get("agent").and_then(Value::as_str) == Some("compact")
            || typed.is_empty()
            || only_tagged_blocks(&typed)
            || INJECTED_PREFIXES
                .iter()
                .any(|prefix| typed.starts_with(prefix));
        if injected {
            let event = plain_event(
                at.key.clone(),
                EventType::System,
                at.line,
                at.time,
                text.trim().to_string(),
                Some("context"),
            );
            self.push(event);
            return;
        }
        let mut event = plain_event(
            at.key.clone(),
            EventType::UserInput,
            at.line,
            at.time,
            typed.clone(),
            None,
        );
        event.starts_turn = true;
        if typed != text.trim() {
            event.payload = Some(json!({ "content": text }));
        }
        self.push(event);
    }

    fn function_call(&mut self, at: &At, record: &Value) {
        let name = text_field(record, "name").unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let call_id = text_field(record, "callId");
        let arguments = arguments_of(record.get("arguments"));
        let event = tool_call(
            at.key.clone(),
            at.line,
            at.time,
            &name,
            call_id.as_deref(),
            arguments,
        );
        self.push(event);
        if let Some(call_id) = call_id {
            self.calls.insert(call_id, name);
        }
    }

    fn function_result(&mut self, at: &At, record: &Value) {
        let call_id = text_field(record, "callId");
        let name = text_field(record, "name")
            .or_else(|| call_id.as_ref().and_then(|id| self.calls.get(id).cloned()))
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let error = record
            .pointer("/providerData/toolResult/error")
            .and_then(Value::as_str)
            .filter(|error| !error.trim().is_empty());
        let mut text = output_text(record.get("output").unwrap_or(&Value::Null));
        if text.trim().is_empty()
            && let Some(error) = error
        {
            text = error.to_string();
        }
        let exit_code = reported_exit_code(&text);
        let status = record.get("status").and_then(Value::as_str).unwrap_or("");
        let failed = matches!(status, "error" | "failed")
            || error.is_some()
            || exit_code.is_some_and(|code| code != 0);
        let mut event = tool_response(
            at.key.clone(),
            at.line,
            at.time,
            &name,
            call_id.as_deref(),
            text,
            failed,
        );
        event.exit_code = exit_code;
        self.push(event);
    }

    fn reasoning(&mut self, at: &At, record: &Value) {
        let text = ["rawContent", "content", "summary"]
            .iter()
            .map(|field| parts_text(record.get(*field).unwrap_or(&Value::Null)))
            .find(|text| !text.trim().is_empty());
        if let Some(text) = text {
            let event = plain_event(
                at.key.clone(),
                EventType::Reasoning,
                at.line,
                at.time,
                text,
                None,
            );
            self.push(event);
        }
    }

    /// A record of a type this reader does not know, kept raw as an `unknown` event (the index
    /// summary counts them per type).
    fn unknown(&mut self, at: At, record: &Value, kind: &str) {
        let subtype = if kind.is_empty() { "untyped" } else { kind };
        let mut event = plain_event(
            at.key,
            EventType::Unknown,
            at.line,
            at.time,
            String::new(),
            Some(subtype),
        );
        event.payload = Some(record.clone());
        self.push(event);
    }

    /// The model and usage of the model call a record belongs to: the usage counts once per
    /// `providerData.messageId`, on the record's first event (else the event before it).
    fn model_call(&mut self, record: &Value, first_event: usize) {
        let Some(provider) = record.get("providerData") else {
            return;
        };
        let model = ["model", "requestModelId", "requestModelName"]
            .iter()
            .find_map(|field| text_field(provider, field));
        if let Some(model) = &model {
            self.meta.model.get_or_insert_with(|| model.clone());
        }
        let Some(usage) = usage_of(record) else {
            return;
        };
        if let Some(call) = text_field(provider, "messageId")
            && !self.counted_calls.insert(call)
        {
            return;
        }
        let carrier = if first_event < self.events.len() {
            Some(first_event)
        } else {
            self.events.len().checked_sub(1)
        };
        if let Some(carrier) = carrier {
            let event = &mut self.events[carrier];
            if event.originating_model.is_none() {
                event.originating_model = model;
            }
            TokenUsage::attach(event, usage);
        }
    }
}

fn set_title(slot: &mut Option<String>, record: &Value, field: &str) {
    if let Some(title) = text_field(record, field)
        && !PLACEHOLDER_TITLES.contains(&title.as_str())
    {
        *slot = Some(title);
    }
}

/// A `providerData` flag that is absent in effect: `false`, `null`, `0` or `""`.
fn is_off(flag: &Value) -> bool {
    match flag {
        Value::Null => true,
        Value::Bool(on) => !on,
        Value::Number(number) => number.as_f64() == Some(0.0),
        Value::String(text) => text.is_empty(),
        _ => false,
    }
}

/// The words the user typed in a user record's text: the `<user_query>` WorkBuddy wraps them
/// in, else the text without `<system-reminder>` blocks.
fn typed_words(text: &str) -> String {
    match tag_content(text, QUERY_TAG) {
        Some(query) if !query.trim().is_empty() => query.trim().to_string(),
        _ => strip_tagged(text, REMINDER_TAG).trim().to_string(),
    }
}

/// Text of item content: a string, or the `text` of its parts (`input_text`, `output_text`,
/// `reasoning_text`, `text`, or untyped), joined by newlines; images and other parts left out.
fn parts_text(content: &Value) -> String {
    const TEXT_PARTS: [&str; 5] = [
        "text",
        "input_text",
        "output_text",
        "reasoning_text",
        "summary_text",
    ];
    text_of_blocks(content, |kind| TEXT_PARTS.contains(&kind))
}

/// A tool output's text: `{type: text, text}`, a string, parts, or other JSON as JSON text.
fn output_text(output: &Value) -> String {
    match output {
        Value::Null => String::new(),
        Value::Object(fields) if !fields.contains_key("text") => output.to_string(),
        Value::String(_) | Value::Array(_) | Value::Object(_) => parts_text(output),
        other => other.to_string(),
    }
}

/// A record's token usage: `providerData.usage` (camelCase or snake_case), else
/// `providerData.rawUsage` (OpenAI's), else the `message.usage` some records carry.
fn usage_of(record: &Value) -> Option<TokenUsage> {
    let carriers = [
        record.pointer("/providerData/usage"),
        record.pointer("/providerData/rawUsage"),
        record.pointer("/message/usage"),
    ];
    carriers
        .into_iter()
        .flatten()
        .filter(|usage| usage.is_object())
        .find_map(counts_of)
}

fn counts_of(usage: &Value) -> Option<TokenUsage> {
    let count = |paths: &[&str]| {
        paths
            .iter()
            .find_map(|path| usage.pointer(path).and_then(Value::as_i64))
    };
    let prompt = count(&["/inputTokens", "/input_tokens", "/prompt_tokens"]);
    let output = count(&["/outputTokens", "/output_tokens", "/completion_tokens"]);
    let cache_read = count(&[
        "/cacheReadInputTokens",
        "/cache_read_input_tokens",
        "/prompt_tokens_details/cached_tokens",
        "/inputTokensDetails/0/cached_tokens",
        "/prompt_cache_hit_tokens",
    ]);
    let cache_write = count(&["/cacheCreationInputTokens", "/cache_creation_input_tokens"]);
    let reasoning = count(&[
        "/reasoningTokens",
        "/reasoning_tokens",
        "/completion_tokens_details/reasoning_tokens",
    ]);
    if [prompt, output, cache_read, cache_write]
        .iter()
        .all(Option::is_none)
    {
        return None;
    }
    // The prompt count includes the cache reads; one smaller than them cannot, and gets them
    // (and the cache writes) added.
    let input = match (prompt, cache_read) {
        (Some(prompt), Some(read)) if prompt < read => {
            Some(prompt + read + cache_write.unwrap_or(0))
        }
        (None, _) => crate::model::add_counts(cache_read, cache_write),
        (prompt, _) => prompt,
    };
    Some(
        TokenUsage {
            input,
            cached_input: cache_read,
            output,
            reasoning,
            total: None,
        }
        .with_derived_total(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::split_json_lines;

    fn parse_lines(path: &str, records: &[Value]) -> ParseOutput {
        let text: String = records.iter().map(|record| format!("{record}\n")).collect();
        let split = split_json_lines(text.as_bytes());
        parse(Path::new(path), &split.lines, Source::CodeBuddy)
    }

    fn item(id: &str, fields: Value) -> Value {
        let mut record = json!({"id": id, "timestamp": 1_790_942_400_000_i64,
            "sessionId": "s1", "cwd": "/w"});
        record
            .as_object_mut()
            .expect("object")
            .extend(fields.as_object().expect("object").clone());
        record
    }

    fn no_env(_: &str) -> Option<PathBuf> {
        None
    }

    #[test]
    fn the_homes_follow_their_variables() {
        let home = Path::new("/home/u");
        assert_eq!(
            project_folders(home, &no_env),
            [
                (
                    Source::CodeBuddy,
                    PathBuf::from("/home/u/.codebuddy/projects")
                ),
                (
                    Source::WorkBuddy,
                    PathBuf::from("/home/u/.workbuddy/projects")
                ),
                (
                    Source::WorkBuddy,
                    PathBuf::from("/home/u/.workbuddy-ai/projects")
                ),
            ]
        );
        let moved = |name: &str| match name {
            "CODEBUDDY_CONFIG_DIR" => Some(PathBuf::from("/srv/cb")),
            "WORKBUDDY_CONFIG_DIR" => Some(PathBuf::from("/srv/wb")),
            _ => None,
        };
        let folders = project_folders(home, &moved);
        assert_eq!(folders[0].1, PathBuf::from("/srv/cb/projects"));
        assert_eq!(
            folders[1],
            (Source::WorkBuddy, PathBuf::from("/srv/wb/projects"))
        );
        assert_eq!(folders.len(), 4);
    }

    #[test]
    fn a_transcript_is_workbuddys_by_its_place() {
        for workbuddy in [
            "/home/u/.workbuddy/projects/w/s.jsonl",
            "/home/u/.workbuddy-ai/projects/w/s/subagents/agent-1.jsonl",
        ] {
            assert!(
                is_workbuddy_path_with(Path::new(workbuddy), &no_env),
                "{workbuddy}"
            );
        }
        for codebuddy in [
            "/home/u/.codebuddy/projects/w/s.jsonl",
            "/home/u/.workbuddy/s.jsonl",
            "/home/u/work/projects/w/s.jsonl",
        ] {
            assert!(
                !is_workbuddy_path_with(Path::new(codebuddy), &no_env),
                "{codebuddy}"
            );
        }
        let moved = |name: &str| (name == "WORKBUDDY_CONFIG_DIR").then(|| PathBuf::from("/srv/wb"));
        assert!(is_workbuddy_path_with(
            Path::new("/srv/wb/projects/w/s.jsonl"),
            &moved
        ));
    }

    #[test]
    fn sniffs_items_with_codebuddys_identity_only() {
        let sniffed = |record: Value| {
            let text = format!("{record}\n");
            sniff(&split_json_lines(text.as_bytes()).lines)
        };
        assert!(sniffed(item(
            "u",
            json!({"type": "message", "role": "user", "content": "hi"})
        )));
        assert!(sniffed(
            json!({"type": "function_call", "callId": "c", "name": "Bash",
            "timestamp": 1_790_942_400_000_i64})
        ));
        // Codex's legacy items and Claude's records are not CodeBuddy's.
        assert!(!sniffed(json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "hi"}]})));
        assert!(!sniffed(
            json!({"type": "user", "sessionId": "s", "uuid": "u",
            "message": {"role": "user", "content": "hi"}})
        ));
    }

    #[test]
    fn reads_every_record_kind() {
        let output = parse_lines(
            "/h/.codebuddy/projects/w/s1.jsonl",
            &[
                item(
                    "u1",
                    json!({"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": "list the files"}]}),
                ),
                item(
                    "u1",
                    json!({"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": "<user_query>list the files</user_query>"}]}),
                ),
                item(
                    "r1",
                    json!({"type": "reasoning",
                    "rawContent": [{"type": "reasoning_text", "text": "use ls"}]}),
                ),
                item(
                    "m1",
                    json!({"type": "function_call", "callId": "c1", "name": "Bash",
                    "arguments": "{\"command\":\"ls\"}",
                    "providerData": {"messageId": "msg1", "model": "hunyuan-2",
                        "usage": {"inputTokens": 900, "outputTokens": 20, "cacheReadInputTokens": 800}}}),
                ),
                item(
                    "m1r",
                    json!({"type": "function_call_result", "callId": "c1", "name": "Bash",
                    "status": "completed",
                    "output": {"type": "text", "text": "a.txt\nExit Code: 2"}}),
                ),
                item(
                    "m2",
                    json!({"type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "ls failed"}],
                    "providerData": {"messageId": "msg2", "rawUsage": {"prompt_tokens": 1000,
                        "completion_tokens": 10, "prompt_tokens_details": {"cached_tokens": 900}}}}),
                ),
                item(
                    "t1",
                    json!({"type": "ai-title", "aiTitle": "Listing files"}),
                ),
                item("t2", json!({"type": "topic", "topic": "Files"})),
                item("t3", json!({"type": "ai-title", "aiTitle": "(No content)"})),
                item("x1", json!({"type": "turn-metrics", "durationMs": 10})),
                item("z1", json!({"type": "hologram"})),
            ],
        );
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "s1");
        assert_eq!(session.source, Source::CodeBuddy);
        assert_eq!(session.meta.title.as_deref(), Some("Listing files"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/w"));
        assert_eq!(session.meta.model.as_deref(), Some("hunyuan-2"));
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::Unknown,
            ],
            "the repeated user message is read once"
        );
        let result = &session.events[3];
        assert_eq!(result.exit_code, Some(2));
        assert_eq!(result.subtype.as_deref(), Some("error"));
        assert_eq!(result.tool_name.as_deref(), Some("Bash"));
        assert_eq!(
            session.events[2].usage.and_then(|usage| usage.input),
            Some(900)
        );
        assert_eq!(
            session.events[2].usage.and_then(|usage| usage.cached_input),
            Some(800)
        );
        assert_eq!(
            session.events[4].usage.and_then(|usage| usage.input),
            Some(1000)
        );
        assert_eq!(session.events[5].subtype.as_deref(), Some("hologram"));
        assert!(
            output.warnings.is_empty(),
            "an unknown record is kept, not warned about"
        );
    }

    #[test]
    fn the_user_query_is_the_prompt_and_flagged_records_are_context() {
        let wrapped = "<system-reminder data-role=\"user-context\">\nOS: linux\n</system-reminder>\n\
                       <user_query>你好</user_query>";
        let output = parse_lines(
            "/h/.workbuddy/projects/w/s2.jsonl",
            &[
                item(
                    "u1",
                    json!({"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": wrapped}]}),
                ),
                item(
                    "u2",
                    json!({"type": "message", "role": "user", "providerData": {"isMeta": true},
                    "content": [{"type": "input_text", "text": "hook said hello"}]}),
                ),
                item(
                    "u3",
                    json!({"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": "<command-name>/cost</command-name>"}]}),
                ),
                item(
                    "u4",
                    json!({"type": "message", "role": "user", "providerData": {"isCompacted": true},
                    "content": [{"type": "input_text", "text": "Summary of the talk so far"}]}),
                ),
                item(
                    "a1",
                    json!({"type": "message", "role": "assistant", "content": "",
                    "providerData": {"messageId": "m", "usage": {"inputTokens": 5, "outputTokens": 1}}}),
                ),
                item(
                    "a2",
                    json!({"type": "message", "role": "assistant",
                    "providerData": {"messageId": "m", "usage": {"inputTokens": 5, "outputTokens": 1}},
                    "content": [{"type": "output_text", "text": "hi"}]}),
                ),
            ],
        );
        let events = &output.sessions[0].events;
        let kinds: Vec<(EventType, Option<&str>)> = events
            .iter()
            .map(|event| (event.kind, event.subtype.as_deref()))
            .collect();
        assert_eq!(
            kinds,
            [
                (EventType::UserInput, None),
                (EventType::System, Some("context")),
                (EventType::System, Some("context")),
                (EventType::Compaction, Some("compact_summary")),
                (EventType::AssistantResponse, None),
            ]
        );
        assert_eq!(events[0].text, "你好");
        assert_eq!(
            events[0].payload.as_ref().expect("payload")["content"],
            wrapped
        );
        let usages: Vec<_> = events.iter().filter_map(|event| event.usage).collect();
        assert_eq!(usages.len(), 1, "one call's usage counts once");
    }

    #[test]
    fn a_subagent_names_its_session() {
        let output = parse_lines(
            "/h/.codebuddy/projects/w/s1/subagents/agent-7.jsonl",
            &[item(
                "u1",
                json!({"type": "message", "role": "user", "content": "look"}),
            )],
        );
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "agent-7");
        assert_eq!(session.meta.parent_native_id.as_deref(), Some("s1"));
    }
}
