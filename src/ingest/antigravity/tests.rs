//! Parser tests: wrappers, the compact/full union, step order, positional pairing, checkpoints
//! and usage, on small in-memory conversations; then every real conversation of the corpus.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use crate::ingest::lines::numbered_lines;
use crate::model::{EventType, RawEvent, TokenUsage, TurnEnd};

fn record(step: u64, source: &str, kind: &str, extra: Value) -> Value {
    let mut record = json!({
        "step_index": step, "source": source, "type": kind, "status": "DONE",
        "created_at": format!("2026-06-20T08:00:{:02}Z", step),
    });
    if let (Some(target), Some(fields)) = (record.as_object_mut(), extra.as_object()) {
        target.extend(fields.clone());
    }
    record
}

fn transcript(name: &str, form: Form, records: &[Value]) -> Transcript {
    Transcript {
        name: name.to_string(),
        form,
        lines: numbered_lines(records),
    }
}

fn conversation(transcripts: Vec<Transcript>) -> Conversation {
    Conversation {
        id: "1a2b3c4d-0000-4000-8000-00000000a001".to_string(),
        transcripts,
        meta: ConversationMeta::default(),
        trajectory: None,
    }
}

fn events_of(conversation: &Conversation) -> Vec<RawEvent> {
    let output = parse(conversation);
    assert_eq!(output.sessions.len(), 1);
    output.sessions[0].events.clone()
}

fn prompt(step: u64, text: &str) -> Value {
    record(
        step,
        "USER_EXPLICIT",
        "USER_INPUT",
        json!({"content": format!(
            "<USER_REQUEST>\n{text}\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nThe current local time is: \
             2026-06-20T10:00:00+02:00.\n</ADDITIONAL_METADATA>\n<USER_SETTINGS_CHANGE>\nThe user changed \
             setting `Model Selection` from None to Gemini 3.5 Flash (Medium). No need to comment.\n\
             </USER_SETTINGS_CHANGE>"
        )}),
    )
}

fn planner(step: u64, content: &str, calls: Value) -> Value {
    record(
        step,
        "MODEL",
        "PLANNER_RESPONSE",
        json!({"content": content, "tool_calls": calls}),
    )
}

#[test]
fn prompts_are_the_request_block_and_history_is_not_content() {
    let events = events_of(&conversation(vec![transcript(
        "transcript_full.jsonl",
        Form::Full,
        &[
            prompt(0, "why does the pelican migration fail"),
            record(
                1,
                "SYSTEM",
                "CONVERSATION_HISTORY",
                json!({"content": "## Conversation 9999: Flamingo Other Session"}),
            ),
            planner(2, "It lacks an index.", json!([])),
        ],
    )]));
    let kinds: Vec<EventType> = events.iter().map(|event| event.kind).collect();
    assert_eq!(
        kinds,
        vec![EventType::UserInput, EventType::AssistantResponse]
    );
    assert_eq!(events[0].text, "why does the pelican migration fail");
    assert!(events[0].starts_turn);
    assert!(
        events[0].payload.as_ref().unwrap()["context"]
            .as_str()
            .unwrap()
            .contains("ADDITIONAL_METADATA")
    );
    assert_eq!(
        events[1].model.as_deref(),
        Some("Gemini 3.5 Flash (Medium)"),
        "the settings change names the model"
    );
    assert!(events.iter().all(|event| !event.text.contains("Flamingo")));
}

#[test]
fn the_union_prefers_full_copies_sorts_by_step_and_keeps_compact_only_steps() {
    let call = json!([{"name": "run_command", "args": {"CommandLine": "make", "Cwd": "/srv"}}]);
    let compact_call =
        json!([{"name": "run_command", "args": {"CommandLine": "\"make\"", "Cwd": "\"/srv\""}}]);
    let cut = record(
        3,
        "MODEL",
        "RUN_COMMAND",
        json!({"content": "ok\n<truncated 10 bytes>", "truncated_fields": ["content"]}),
    );
    let full = transcript(
        "transcript_full.jsonl",
        Form::Full,
        &[
            prompt(0, "build it"),
            planner(2, "Building.", call.clone()),
            planner(4, "Built.", json!([])),
        ],
    );
    let compact = transcript(
        "transcript.jsonl",
        Form::Compact,
        &[
            planner(4, "Built (compact copy).", json!([])),
            cut,
            planner(2, "Building (compact copy).", compact_call),
            prompt(0, "build it"),
        ],
    );
    let events = events_of(&conversation(vec![compact, full]));
    let texts: Vec<&str> = events.iter().map(|event| event.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "build it",
            "Building.",
            "run_command(CommandLine=\"make\", Cwd=\"/srv\")",
            "ok\n<truncated 10 bytes>",
            "Built.",
        ]
    );
    assert_eq!(
        events[2].payload,
        Some(json!({"CommandLine": "make", "Cwd": "/srv"}))
    );
    assert_eq!(events[3].tool_call_id, events[2].tool_call_id);
}

#[test]
fn compact_arguments_are_decoded_from_json_text() {
    let compact = transcript(
        "transcript.jsonl",
        Form::Compact,
        &[planner(
            1,
            "",
            json!([{"name": "run_command", "args": {"WaitMsBeforeAsync": "2000", "Cwd": "\"/root\"", "Cut": "\"abc<truncated"}}]),
        )],
    );
    let events = events_of(&conversation(vec![compact]));
    assert_eq!(
        events[0].payload,
        Some(json!({"WaitMsBeforeAsync": 2000, "Cwd": "/root", "Cut": "\"abc<truncated"}))
    );
}

#[test]
fn calls_pair_with_results_by_position_and_an_error_message_fails_a_call() {
    let calls = json!([
        {"name": "view_file", "args": {"AbsolutePath": "/a"}},
        {"name": "run_command", "args": {"CommandLine": "make"}},
        {"name": "grep_search", "args": {"Query": "x"}},
    ]);
    let events = events_of(&conversation(vec![transcript(
        "transcript_full.jsonl",
        Form::Full,
        &[
            prompt(0, "go"),
            planner(1, "", calls),
            record(2, "MODEL", "VIEW_FILE", json!({"content": "file body"})),
            record(
                3,
                "SYSTEM",
                "ERROR_MESSAGE",
                json!({"error": "There was a problem parsing the tool call."}),
            ),
            // step 4 (grep_search's result) is missing: the call stays unanswered
            record(
                5,
                "SYSTEM",
                "ERROR_MESSAGE",
                json!({"error": "model unreachable", "error_code": 503}),
            ),
            record(
                6,
                "MODEL",
                "RUN_COMMAND",
                json!({"content": "The command failed with exit code: 2"}),
            ),
        ],
    )]));
    let calls: Vec<&RawEvent> = events
        .iter()
        .filter(|event| event.kind == EventType::ToolCall)
        .collect();
    assert_eq!(calls.len(), 3);
    let responses: Vec<&RawEvent> = events
        .iter()
        .filter(|event| event.kind == EventType::ToolResponse)
        .collect();
    assert_eq!(responses[0].tool_name.as_deref(), Some("view_file"));
    assert_eq!(responses[0].tool_call_id, calls[0].tool_call_id);
    assert_eq!(responses[1].tool_name.as_deref(), Some("run_command"));
    assert_eq!(responses[1].tool_call_id, calls[1].tool_call_id);
    assert_eq!(responses[1].subtype.as_deref(), Some("error"));
    assert!(responses[1].text.contains("problem parsing"));
    // A late result with no call expected at its step answers the oldest open call.
    assert_eq!(responses[2].tool_name.as_deref(), Some("grep_search"));
    assert_eq!(responses[2].exit_code, Some(2));
    let runtime: Vec<&RawEvent> = events
        .iter()
        .filter(|event| event.kind == EventType::Runtime)
        .collect();
    assert_eq!(
        runtime.len(),
        1,
        "an error with no call waiting is a runtime event"
    );
    assert_eq!(runtime[0].payload, Some(json!({"error_code": 503})));
}

#[test]
fn checkpoints_system_messages_and_terminal_replies() {
    let events = events_of(&conversation(vec![transcript(
        "transcript_full.jsonl",
        Form::Full,
        &[
            prompt(0, "start"),
            record(
                1,
                "SYSTEM",
                "EPHEMERAL_MESSAGE",
                json!({"content": "planning mode"}),
            ),
            planner(2, "Waiting for the task.", json!([])),
            record(
                3,
                "SYSTEM",
                "SYSTEM_MESSAGE",
                json!({"content": "task-7 finished"}),
            ),
            record(
                4,
                "SYSTEM",
                "CHECKPOINT",
                json!({"content": "{{ CHECKPOINT 0 }}\nsummary"}),
            ),
            planner(5, "Done.", json!([])),
            record(
                6,
                "USER_EXPLICIT",
                "VIEW_FILE",
                json!({"content": "c:\\x.py"}),
            ),
        ],
    )]));
    let summary: Vec<(EventType, Option<&str>, Option<TurnEnd>)> = events
        .iter()
        .map(|event| (event.kind, event.subtype.as_deref(), event.turn_end))
        .collect();
    assert_eq!(
        summary,
        vec![
            (EventType::UserInput, None, None),
            (EventType::System, Some("ephemeral_message"), None),
            (EventType::AssistantResponse, None, None),
            (EventType::System, Some("system_message"), None),
            (EventType::Compaction, Some("checkpoint"), None),
            (EventType::AssistantResponse, None, Some(TurnEnd::Terminal)),
            (EventType::System, Some("user_view_file"), None),
        ]
    );
}

#[test]
fn usage_and_exact_models_come_from_the_trajectory() {
    let usage = |input| TokenUsage {
        input: Some(input),
        cached_input: Some(0),
        output: Some(10),
        reasoning: Some(4),
        total: Some(input + 10),
    };
    let mut conversation = conversation(vec![transcript(
        "transcript_full.jsonl",
        Form::Full,
        &[
            prompt(0, "go"),
            record(
                1,
                "MODEL",
                "PLANNER_RESPONSE",
                json!({"thinking": "hmm", "content": "ok", "tool_calls": [{"name": "list_dir", "args": {}}]}),
            ),
            record(2, "MODEL", "LIST_DIRECTORY", json!({"content": "a"})),
            planner(5, "done", json!([])),
        ],
    )]);
    conversation.trajectory = Some(Trajectory {
        generations: vec![
            Generation {
                steps: vec![1, 2],
                usage: usage(100),
                model: Some("gemini-3-flash-a".into()),
            },
            // Step 3 is not in the transcript: its usage goes to the nearest earlier event.
            Generation {
                steps: vec![3],
                usage: usage(50),
                model: Some("gemini-3-flash-a".into()),
            },
            Generation {
                steps: vec![5],
                usage: usage(7),
                model: Some("gemini-3-flash-a".into()),
            },
        ],
        source: Some(17),
        workspace: Some("/home/dev/app".into()),
    });
    let output = parse(&conversation);
    let session = &output.sessions[0];
    assert_eq!(
        session.meta.harness_version.as_deref(),
        Some("antigravity-cli")
    );
    assert_eq!(session.meta.cwd.as_deref(), Some("/home/dev/app"));
    assert_eq!(session.meta.model.as_deref(), Some("gemini-3-flash-a"));
    let carriers = session.usage_carriers();
    assert_eq!(
        carriers,
        vec![
            ("step-1.thinking", usage(100)),
            ("step-2", usage(50)),
            ("step-5.reply", usage(7)),
        ]
    );
}

#[test]
fn a_conversation_without_the_db_has_no_usage() {
    let events = events_of(&conversation(vec![transcript(
        "transcript_full.jsonl",
        Form::Full,
        &[prompt(0, "hi"), planner(1, "hello", json!([]))],
    )]));
    assert!(events.iter().all(|event| event.usage.is_none()));
}

/// Every real conversation of the corpus parses with named, paired tools and no wrapper text
/// as a prompt.
#[test]
fn corpus_conversations_parse() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/antigravity");
    if !corpus.is_dir() {
        eprintln!("SKIPPED: ../shared/corpus is absent");
        return;
    }
    let keys: std::collections::BTreeSet<PathBuf> = walkdir::WalkDir::new(&corpus)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|entry| match group::role_of(entry.path()) {
            Some(group::Role::Member(key)) if key.is_dir() => Some(key),
            _ => None,
        })
        .collect();
    assert_eq!(keys.len(), 14, "{keys:?}");
    for key in keys {
        let (home, _) = group::home_and_id(&key).unwrap();
        let meta = group::meta_of(&key, &home::HomeIndex::load(&home));
        let read = group::read(&key, meta, Default::default())
            .unwrap()
            .unwrap_or_else(|| panic!("{key:?} recognised"));
        let output = parse(&read.conversation);
        let events = &output.sessions[0].events;
        assert!(output.warnings.is_empty(), "{key:?}: {:?}", output.warnings);
        assert!(
            events
                .iter()
                .any(|event| event.kind == EventType::UserInput)
        );
        for event in events {
            if event.kind == EventType::UserInput {
                assert!(!event.text.contains("<ADDITIONAL_METADATA>"), "{key:?}");
                assert!(!event.text.contains("<USER_REQUEST>"), "{key:?}");
            }
            if matches!(event.kind, EventType::ToolCall | EventType::ToolResponse) {
                assert!(
                    event
                        .tool_name
                        .as_deref()
                        .is_some_and(|name| !name.is_empty())
                );
            }
        }
        let mut keys_seen = std::collections::HashSet::new();
        assert!(
            events
                .iter()
                .all(|event| keys_seen.insert(event.key.clone()))
        );
        let paired = events
            .iter()
            .filter(|event| event.kind == EventType::ToolResponse && event.tool_call_id.is_some())
            .count();
        let calls = events
            .iter()
            .filter(|event| event.kind == EventType::ToolCall)
            .count();
        assert!(
            paired * 10 >= calls * 9,
            "{key:?}: {paired} of {calls} calls answered"
        );
        let with_db = group::database_of(&key).is_some();
        let with_usage = events.iter().any(|event| event.usage.is_some());
        assert_eq!(with_db, with_usage, "{key:?}: tokens only from the .db");
    }
}
