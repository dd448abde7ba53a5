//! Continuation chains (seed 002 in the default profile): the `chain` object of every session
//! object, and `open({id, sessions})` narrowing a chain to a relay-style session range, over a
//! chain of four Claude sessions sharing a slug, over a chain as Claude Code continues one
//! (each session a copy of the previous conversation, then its own), and over the real corpus.

use std::path::Path;

use serde_json::{Value, json};

use super::client::EskerClient;
use crate::support::{corpus_store, index_into, query_rows, standalone_fixture};

const SLUG: &str = "quiet-amber-fox";

fn claude_session(project: &Path, session_id: &str, slug: Option<&str>, day: u32, prompt: &str) {
    let time = |second: u32| format!("2026-05-{day:02}T10:00:{second:02}.000Z");
    let mut user = json!({
        "type": "user", "uuid": format!("{session_id}-u"), "parentUuid": null,
        "sessionId": session_id, "timestamp": time(0), "cwd": "/home/dev/app",
        "version": "2.1.40", "isSidechain": false, "userType": "external",
        "message": {"role": "user", "content": prompt}
    });
    let mut reply = json!({
        "type": "assistant", "uuid": format!("{session_id}-a"),
        "parentUuid": format!("{session_id}-u"), "sessionId": session_id, "timestamp": time(5),
        "cwd": "/home/dev/app", "version": "2.1.40", "isSidechain": false,
        "message": {"id": format!("msg-{session_id}"), "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": format!("done: {prompt}")}]}
    });
    if let Some(slug) = slug {
        user["slug"] = json!(slug);
        reply["slug"] = json!(slug);
    }
    let text = format!("{user}\n{reply}\n");
    std::fs::write(project.join(format!("{session_id}.jsonl")), text).expect("write log");
}

/// A store with a four-session chain (days 1-4) and one session alone.
fn chain_store() -> (tempfile::TempDir, tempfile::TempDir) {
    let logs = tempfile::tempdir().expect("temp dir");
    let project = logs.path().join("projects").join("-home-dev-app");
    std::fs::create_dir_all(&project).expect("mkdir");
    // Written out of order: numbering follows start times, not files.
    for (id, day) in [("c3", 3), ("c1", 1), ("c4", 4), ("c2", 2)] {
        let prompt = format!("chain step {day} of the parquet migration");
        claude_session(
            &project,
            &format!("aaaaaaaa-0000-4000-8000-00000000000{}", &id[1..]),
            Some(SLUG),
            day,
            &prompt,
        );
    }
    claude_session(
        &project,
        "bbbbbbbb-0000-4000-8000-000000000001",
        None,
        9,
        "a lone question",
    );
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);
    (logs, data)
}

fn session_id_of_day(day: u32) -> String {
    format!("session:claude-aaaaaaaa-0000-4000-8000-00000000000{day}")
}

#[tokio::test]
async fn sessions_show_their_chain_and_open_takes_a_session_range() {
    let (_logs, data) = chain_store();
    let client = EskerClient::start(data.path()).await;
    let listed = client
        .success(
            "list_sessions",
            json!({"start_datetime": "2026-01-01T00:00:00Z", "end_datetime": "2027-01-01T00:00:00Z", "limit": 50}),
        )
        .await;
    let sessions = listed["data"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 5);
    for day in 1..=4 {
        let id = session_id_of_day(day);
        let item = sessions
            .iter()
            .find(|item| item["id"] == id.as_str())
            .expect("listed");
        assert_eq!(
            item["session"]["chain"],
            json!({"slug": SLUG, "session_number": day, "session_count": 4}),
            "{id}"
        );
    }
    let lone = "session:claude-bbbbbbbb-0000-4000-8000-000000000001";
    let lone_item = sessions.iter().find(|item| item["id"] == lone).unwrap();
    assert_eq!(lone_item["session"]["chain"], Value::Null);

    // open(session) and search hits carry the same object.
    let opened = client.open(&session_id_of_day(2)).await;
    assert_eq!(opened["session"]["chain"]["session_number"], 2);
    let hits = client
        .success(
            "search_sessions",
            json!({"query": "parquet migration step", "n_hits": 10}),
        )
        .await;
    let hits = hits["data"]["results"].as_array().unwrap();
    assert!(!hits.is_empty());
    for hit in hits {
        assert_eq!(hit["session"]["chain"]["session_count"], 4, "{hit}");
    }

    // Any member addresses the chain; the range picks members in chain order.
    let range = client
        .success(
            "open",
            json!({"id": session_id_of_day(1), "sessions": "4,2-3"}),
        )
        .await;
    assert_eq!(
        range["request"],
        json!({"id": session_id_of_day(1), "sessions": "4,2-3"})
    );
    let members = range["data"]["members"].as_array().unwrap();
    let numbers: Vec<i64> = members
        .iter()
        .map(|m| m["session_number"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, vec![2, 3, 4]);
    for (member, day) in members.iter().zip(2..) {
        assert_eq!(member["session"]["id"], session_id_of_day(day));
        let prompt = member["turns"][0]["user_input"]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("member has a prompt: {member:#}"));
        assert_eq!(prompt, format!("chain step {day} of the parquet migration"));
    }
    assert_eq!(range["data"]["session_count"], 4);

    for (arguments, message) in [
        (
            json!({"id": session_id_of_day(3), "sessions": "7"}),
            "Session 7 out of range (1-4)",
        ),
        (
            json!({"id": session_id_of_day(3), "sessions": "3-1"}),
            "Invalid range: 3-1 (start > end)",
        ),
        (
            json!({"id": session_id_of_day(3), "sessions": ""}),
            "Empty session range",
        ),
        (
            json!({"id": lone, "sessions": "2"}),
            "Session 2 out of range (1-1)",
        ),
    ] {
        let failure = client.failure("open", arguments.clone()).await;
        assert_eq!(failure["error"]["code"], "invalid_request", "{arguments}");
        assert_eq!(failure["error"]["message"], message, "{arguments}");
    }
    let alone = client
        .success("open", json!({"id": lone, "sessions": "1"}))
        .await;
    assert_eq!(alone["data"]["members"][0]["session"]["id"], lone);
    let turn_id = opened["turns"][0]["id"].as_str().unwrap();
    let wrong_kind = client
        .failure("open", json!({"id": turn_id, "sessions": "1"}))
        .await;
    assert_eq!(wrong_kind["error"]["code"], "invalid_request");
}

#[test]
fn corpus_chains_are_numbered_by_start_time() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let rows = query_rows(
        data_dir,
        "SELECT chain_id, chain_number, chain_length, session_id, started_at FROM sessions \
         WHERE chain_id IS NOT NULL ORDER BY chain_id, started_at, session_id",
    );
    let mut expected_number = 0;
    let mut current_chain = String::new();
    for row in &rows {
        let chain = row["chain_id"].as_str().unwrap().to_string();
        if chain != current_chain {
            current_chain = chain;
            expected_number = 0;
        }
        expected_number += 1;
        assert_eq!(
            row["chain_number"].as_i64(),
            Some(expected_number),
            "{row:?}"
        );
        assert!(row["chain_length"].as_i64().unwrap() >= expected_number);
    }
    let claude_slugs = query_rows(
        data_dir,
        "SELECT session_slug, count(*) AS sessions, count(DISTINCT chain_id) AS chains FROM sessions \
         WHERE source = 'claude' AND session_slug IS NOT NULL AND parent_session_id IS NULL \
         GROUP BY session_slug HAVING count(*) > 1",
    );
    for row in claude_slugs {
        assert_eq!(
            row["chains"], 1,
            "sessions sharing a slug are one chain: {row:?}"
        );
    }
}

/// The sessions of `tests/standalone-fixtures/claude-resumed-chain`, in the order Claude Code wrote them,
/// with the prompt each one added to the conversation it copied.
const RESUMED_CHAIN: [(&str, &str); 4] = [
    (
        "a7da6a22-facc-4fcd-8bab-f83c87862004",
        "It's been a while - I see that I have pending changes",
    ),
    (
        "5c0e1d3b-7f2a-4b8e-9d61-2a4f8c3e7b10",
        "Is everything OK with this project?",
    ),
    (
        "9e4b7a12-3c5d-4f6e-8a9b-0c1d2e3f4a5b",
        "The above \"status report\" is very interesting",
    ),
    (
        "d2f81c47-6b3a-4e95-a0c8-71e5b9d4f326",
        "New feature: we support .zip",
    ),
];

/// Issue #48: a range over a real continued chain gave the wrong members (every member starts
/// at the first one's first record, and equal starts were ordered by session id), so
/// `sessions: "2-3"` opened session 3 and the first session, never session 2's own turn.
#[tokio::test]
async fn a_continued_claude_chain_is_numbered_in_the_order_it_was_written() {
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[&standalone_fixture("claude-resumed-chain")]);
    let esker_id = |native: &str| format!("session:claude-{native}");
    let rows = query_rows(
        data.path(),
        "SELECT session_id, chain_number, chain_length, started_at FROM sessions \
         ORDER BY chain_number",
    );
    let numbered: Vec<(String, i64)> = rows
        .iter()
        .map(|row| {
            let id = row["session_id"].as_str().unwrap().to_owned();
            (id, row["chain_number"].as_i64().unwrap())
        })
        .collect();
    let expected: Vec<(String, i64)> = RESUMED_CHAIN
        .iter()
        .zip(1..)
        .map(|((native, _), number)| (esker_id(native), number))
        .collect();
    assert_eq!(numbered, expected, "{rows:?}");
    assert!(
        rows.iter()
            .all(|row| row["started_at"] == rows[0]["started_at"]),
        "the fixture's members all start at the copied first record: {rows:?}"
    );

    let client = EskerClient::start(data.path()).await;
    for (native, _) in RESUMED_CHAIN {
        let range = client
            .success("open", json!({"id": esker_id(native), "sessions": "2-3"}))
            .await;
        let members = range["data"]["members"].as_array().unwrap();
        assert_eq!(members.len(), 2, "{range:#}");
        for (member, position) in members.iter().zip(1..) {
            let (member_native, own_prompt) = RESUMED_CHAIN[position];
            assert_eq!(member["session_number"], position as i64 + 1);
            assert_eq!(member["session"]["id"], esker_id(member_native));
            let last_prompt = member["turns"]
                .as_array()
                .and_then(|turns| turns.last())
                .and_then(|turn| turn["user_input"]["text"].as_str())
                .unwrap_or_else(|| panic!("member has turns: {member:#}"));
            assert!(
                last_prompt.starts_with(own_prompt),
                "session {} ends with its own prompt {own_prompt:?}, not {last_prompt:?}",
                position + 1
            );
        }
    }
    drop(client);

    // relay-search's get_conversation reads the same members for the slug's range.
    let relay = EskerClient::start_with(
        data.path(),
        &["--no-index", "--profile", "relay"],
        "/nonexistent-esker-test-home",
    )
    .await;
    let result = relay
        .call(
            "get_conversation",
            json!({"session_id_or_slug": "humble-doodling-wolf", "session": "2-3",
                   "format": "json"}),
        )
        .await;
    let answer = result.structured_content.expect("structured content");
    let sessions: Vec<&str> = answer["sessions"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer:#}"))
        .iter()
        .filter_map(|session| session["session_id"].as_str())
        .collect();
    assert_eq!(sessions, vec![RESUMED_CHAIN[1].0, RESUMED_CHAIN[2].0]);
    for (native, own_prompt) in &RESUMED_CHAIN[1..3] {
        let own = answer["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|message| {
                message["session_id"] == *native
                    && message["role"] == "user"
                    && message["content"]
                        .as_str()
                        .is_some_and(|text| text.starts_with(own_prompt))
            });
        assert!(own, "{native}'s own prompt is in the range: {answer:#}");
    }
}
