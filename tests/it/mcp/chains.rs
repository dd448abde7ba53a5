//! Continuation chains (seed 002 in the default profile): the `chain` object of every session
//! object, and `open({id, sessions})` narrowing a chain to a relay-style session range, over a
//! chain of four Claude sessions sharing a slug, and over the real corpus.

use std::path::Path;

use serde_json::{Value, json};

use super::client::EskerClient;
use crate::support::{corpus_store, index_into, query_rows};

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
