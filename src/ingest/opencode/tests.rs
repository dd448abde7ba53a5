//! Parser tests on small sessions, and on the real legacy tree and database of the corpus.

use std::path::Path;

use serde_json::{Value, json};

use super::*;
use crate::model::{EventType, TokenUsage};

fn message(id: &str, info: Value, parts: Vec<Value>) -> MessageRecord {
    MessageRecord {
        id: id.to_string(),
        info,
        parts: parts
            .into_iter()
            .enumerate()
            .map(|(index, part)| (format!("prt_{id}_{index}"), part))
            .collect(),
    }
}

fn session(messages: Vec<MessageRecord>) -> SessionRecord {
    SessionRecord {
        id: "ses_test".to_string(),
        info: json!({"title": "New session - 2026-03-01T10:00:00.000Z", "directory": "/home/dev/app",
            "version": "1.0.107", "parentID": "ses_parent", "time": {"created": 1772359200000_i64}}),
        messages,
    }
}

#[test]
fn prompts_replies_tools_failures_usage_and_the_parent() {
    let record = session(vec![
        message(
            "msg_a_user",
            json!({"role": "user", "time": {"created": 1772359200000_i64}}),
            vec![
                json!({"type": "text", "text": "fix the walrus test"}),
                json!({"type": "text", "text": "<system-reminder>injected</system-reminder>", "synthetic": true}),
            ],
        ),
        message(
            "msg_b_assistant",
            json!({"role": "assistant", "modelID": "claude-sonnet-4-5", "finish": "stop",
                "time": {"created": 1772359201000_i64, "completed": 1772359209000_i64},
                "tokens": {"input": 2, "output": 100, "reasoning": 10, "cache": {"read": 1000, "write": 50}}}),
            vec![
                json!({"type": "step-start"}),
                json!({"type": "reasoning", "text": "Look at the test first."}),
                json!({"type": "tool", "tool": "read", "callID": "toolu_1",
                    "state": {"status": "completed", "input": {"filePath": "/a.rs"}, "output": "fn walrus() {}"}}),
                json!({"type": "tool", "tool": "bash", "callID": "toolu_2",
                    "state": {"status": "error", "input": {"command": "cargo test"}, "error": "exit 101"}}),
                json!({"type": "text", "text": "The walrus test is fixed."}),
                json!({"type": "step-finish", "tokens": {"input": 2}}),
            ],
        ),
    ]);
    let output = parse(&record);
    let parsed = &output.sessions[0];
    assert_eq!(
        parsed.meta.title, None,
        "the default title gives way to the prompt"
    );
    assert_eq!(parsed.meta.parent_native_id.as_deref(), Some("ses_parent"));
    assert_eq!(parsed.meta.cwd.as_deref(), Some("/home/dev/app"));
    let summary: Vec<(EventType, Option<&str>, Option<&str>)> = parsed
        .events
        .iter()
        .map(|event| {
            (
                event.kind,
                event.tool_call_id.as_deref(),
                event.subtype.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (EventType::UserInput, None, None),
            (EventType::System, None, Some("synthetic")),
            (EventType::Reasoning, None, None),
            (EventType::ToolCall, Some("toolu_1"), None),
            (EventType::ToolResponse, Some("toolu_1"), None),
            (EventType::ToolCall, Some("toolu_2"), None),
            (EventType::ToolResponse, Some("toolu_2"), Some("error")),
            (EventType::AssistantResponse, None, None),
        ]
    );
    assert_eq!(parsed.events[0].text, "fix the walrus test");
    assert!(
        parsed.events[7].turn_end.is_some(),
        "finish stop ends the turn"
    );
    assert_eq!(
        parsed.usage_carriers(),
        vec![(
            "prt_msg_b_assistant_1",
            TokenUsage {
                input: Some(1052),
                cached_input: Some(1000),
                output: Some(110),
                reasoning: Some(10),
                total: Some(1162),
            }
        )]
    );
}

#[test]
fn an_api_error_is_a_terminal_runtime_event() {
    let record = session(vec![
        message(
            "msg_a",
            json!({"role": "user", "time": {"created": 1}}),
            vec![json!({"type": "text", "text": "hi"})],
        ),
        message(
            "msg_b",
            json!({"role": "assistant", "time": {"created": 2},
                "error": {"name": "APIError", "data": {"message": "Extra usage must be enabled"}},
                "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
            vec![],
        ),
    ]);
    let events = &parse(&record).sessions[0].events;
    assert_eq!(events[1].kind, EventType::Runtime);
    assert_eq!(events[1].text, "Extra usage must be enabled");
    assert!(
        events.iter().all(|event| event.usage.is_none()),
        "zero usage is no usage"
    );
}

fn corpus() -> Option<std::path::PathBuf> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/opencode");
    if corpus.is_dir() {
        Some(corpus)
    } else {
        eprintln!("SKIPPED: ../shared/corpus is absent");
        None
    }
}

#[test]
fn corpus_legacy_tree_and_database_parse() {
    let Some(corpus) = corpus() else {
        return;
    };
    let storage = corpus.join("jwp23_dotfiles/storage");
    let key = storage.join("message/ses_53993b312ffeefelTsBlbUVXV8");
    let part =
        storage.join("part/msg_ac66cc747002NIrz9VJhyVvXnk/prt_ac66cd268001Omd9aUJY5hCNrG.json");
    assert_eq!(tree::key_of(&part), Some(key.clone()));
    assert!(tree::members(&key).len() > 10);
    let (record, _) = tree::read(&key).expect("legacy session");
    let parsed = &parse(&record).sessions[0];
    assert_eq!(
        parsed.meta.title.as_deref(),
        Some("Adding /story command to README")
    );
    assert!(
        parsed
            .events
            .iter()
            .any(|event| event.kind == EventType::ToolResponse
                && event.tool_name.as_deref() == Some("edit"))
    );

    let database = corpus.join("suhd550-dev_stunning-memory/opencode.db");
    let snapshot = crate::ingest::sqlite::open_snapshot(&database).expect("snapshot");
    assert!(store::has_schema(&snapshot.connection).unwrap());
    let stamps = store::session_stamps(&snapshot.connection).unwrap();
    assert_eq!(stamps.len(), 1);
    let record = store::read_session(&snapshot.connection, &stamps[0].0).unwrap();
    assert_eq!(record.messages.len(), 35);
    let parsed = &parse(&record).sessions[0];
    let calls = parsed
        .events
        .iter()
        .filter(|event| event.kind == EventType::ToolCall)
        .count();
    let results = parsed
        .events
        .iter()
        .filter(|event| event.kind == EventType::ToolResponse)
        .count();
    assert_eq!((calls, results), (21, 21));
    assert_eq!(
        parsed.meta.model.as_deref(),
        Some("monkeycode-basic/deepseek-v4-flash")
    );
    assert!(!parsed.usage_carriers().is_empty());
}
