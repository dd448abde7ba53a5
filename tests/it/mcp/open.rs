//! `open`: every row of the spec's input permutation matrix, full event content, turn and
//! session summaries checked against the tables, and the additive session links.

use serde_json::{Value, json};

use super::client::{EskerClient, fixture_rows, fixture_string, strings_at};

#[tokio::test]
async fn opening_a_session_lists_every_turn_in_order() {
    let client = EskerClient::fixtures().await;
    let rows = fixture_rows(
        "SELECT session_id, turn_count, event_count, title FROM sessions ORDER BY turn_count DESC, session_id LIMIT 1",
    );
    let session_id = rows[0]["session_id"].as_str().unwrap();
    let envelope = client.success("open", json!({"id": session_id})).await;
    assert_eq!(envelope["request"], json!({"id": session_id}));
    assert_eq!(envelope["performance"]["sla_target_ms"], 500);
    let data = &envelope["data"];
    assert_eq!(data["kind"], "session");
    assert_eq!(data["session"]["id"], session_id);
    assert_eq!(data["session"]["title"], rows[0]["title"]);
    assert_eq!(data["session"]["turn_count"], rows[0]["turn_count"]);
    assert_eq!(data["session"]["event_count"], rows[0]["event_count"]);
    let turns = data["turns"].as_array().unwrap();
    assert_eq!(turns.len() as u64, rows[0]["turn_count"].as_u64().unwrap());
    let ordinals: Vec<u64> = turns
        .iter()
        .map(|turn| turn["ordinal"].as_u64().unwrap())
        .collect();
    assert_eq!(ordinals, (1..=turns.len() as u64).collect::<Vec<_>>());
    for turn in turns {
        assert_eq!(turn["open"]["turn_id"], turn["id"]);
        assert_eq!(turn["open"]["terminal_event_id"], turn["terminal_event_id"]);
        assert!(turn["tools_called"].is_array() && turn["event_types"].is_array());
        if turn["completed"] == false {
            assert_eq!(turn["terminal_event_id"], Value::Null);
        }
        assert!(
            !turn.to_string().contains("\"payload\""),
            "no payloads in open(session)"
        );
    }
    let completed = fixture_string(&format!(
        "SELECT CAST(completed AS VARCHAR) FROM sessions WHERE session_id = '{session_id}'"
    ));
    assert_eq!(data["session"]["completed"].to_string(), completed);
    let last_turn_completed = &turns.last().unwrap()["completed"];
    assert_eq!(&data["session"]["completed"], last_turn_completed);
}

#[tokio::test]
async fn opening_a_turn_lists_every_event_with_one_line_summaries() {
    let client = EskerClient::fixtures().await;
    let rows = fixture_rows(
        "SELECT turn_id, session_id, event_count, first_event_id, last_event_id FROM turns \
         ORDER BY event_count DESC, turn_id LIMIT 1",
    );
    let turn_id = rows[0]["turn_id"].as_str().unwrap();
    let envelope = client.success("open", json!({"id": turn_id})).await;
    assert_eq!(envelope["performance"]["sla_target_ms"], 300);
    let data = &envelope["data"];
    assert_eq!(data["kind"], "turn");
    assert_eq!(data["turn"]["id"], turn_id);
    assert_eq!(data["turn"]["session_id"], rows[0]["session_id"]);
    assert_eq!(data["session"]["id"], rows[0]["session_id"]);
    assert!(
        data["session"]["title"]
            .as_str()
            .is_some_and(|title| !title.is_empty())
    );
    let events = data["events"].as_array().unwrap();
    assert_eq!(
        events.len() as u64,
        rows[0]["event_count"].as_u64().unwrap()
    );
    let ordinals: Vec<u64> = events
        .iter()
        .map(|event| event["ordinal"].as_u64().unwrap())
        .collect();
    assert_eq!(ordinals, (1..=events.len() as u64).collect::<Vec<_>>());
    for event in events {
        let summary = event["summary"].as_str().unwrap();
        assert!(
            summary.chars().count() <= 200 && !summary.contains('\n'),
            "{summary}"
        );
        assert!(event["truncated"].is_boolean());
    }
    assert_eq!(
        data["traversal"]["first_event_id"],
        rows[0]["first_event_id"]
    );
    assert_eq!(data["traversal"]["last_event_id"], rows[0]["last_event_id"]);
    assert_eq!(events.first().unwrap()["id"], rows[0]["first_event_id"]);
    assert_eq!(events.last().unwrap()["id"], rows[0]["last_event_id"]);
    let types: Vec<String> = strings_at(&data["events"], "/type");
    let mut first_seen: Vec<String> = Vec::new();
    for kind in types {
        if !first_seen.contains(&kind) {
            first_seen.push(kind);
        }
    }
    assert_eq!(data["summary"]["event_types"], json!(first_seen));
}

#[tokio::test]
async fn an_incomplete_turn_invents_no_final_response() {
    let client = EskerClient::fixtures().await;
    let turn_id =
        fixture_string("SELECT turn_id FROM turns WHERE NOT completed ORDER BY turn_id LIMIT 1");
    let data = client.open(&turn_id).await;
    assert_eq!(data["turn"]["completed"], false);
    assert_eq!(data["turn"]["terminal_event_id"], Value::Null);
    assert_eq!(data["summary"]["final_response"], Value::Null);
    assert!(
        data["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|event| event["terminal"] == false)
    );
}

#[tokio::test]
async fn a_completed_turn_has_exactly_one_terminal_event() {
    let client = EskerClient::fixtures().await;
    let turn_id = fixture_string(
        "SELECT turn_id FROM turns WHERE completed ORDER BY event_count DESC, turn_id LIMIT 1",
    );
    let data = client.open(&turn_id).await;
    let terminal: Vec<&Value> = data["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["terminal"] == true)
        .collect();
    assert_eq!(terminal.len(), 1);
    assert_eq!(terminal[0]["id"], data["turn"]["terminal_event_id"]);
}

#[tokio::test]
async fn opening_an_event_returns_its_full_content() {
    let client = EskerClient::fixtures().await;
    let rows = fixture_rows(
        "SELECT event_id, text, type FROM events ORDER BY character_length(text) DESC, event_id LIMIT 1",
    );
    let event_id = rows[0]["event_id"].as_str().unwrap();
    let envelope = client.success("open", json!({"id": event_id})).await;
    assert_eq!(envelope["performance"]["sla_target_ms"], 200);
    let data = &envelope["data"];
    assert_eq!(data["kind"], "event");
    assert_eq!(data["event"]["id"], event_id);
    assert_eq!(data["event"]["type"], rows[0]["type"]);
    assert_eq!(
        data["content"]["text"], rows[0]["text"],
        "the whole text, not a summary"
    );
    assert_eq!(data["content"]["truncated"], false);
    assert!(
        data["session"]["title"]
            .as_str()
            .is_some_and(|title| !title.is_empty())
    );
}

#[tokio::test]
async fn tool_calls_carry_name_and_parsed_arguments() {
    let client = EskerClient::fixtures().await;
    let rows = fixture_rows(
        "SELECT event_id, tool_name, payload FROM events WHERE type = 'tool_call' AND payload IS NOT NULL ORDER BY event_id LIMIT 1",
    );
    let data = client.open(rows[0]["event_id"].as_str().unwrap()).await;
    assert_eq!(data["content"]["format"], "tool_call");
    assert_eq!(data["content"]["tool_name"], rows[0]["tool_name"]);
    assert_eq!(data["event"]["tool_name"], rows[0]["tool_name"]);
    let payload: Value = serde_json::from_str(rows[0]["payload"].as_str().unwrap()).unwrap();
    assert_eq!(data["content"]["arguments"], payload);
    assert!(
        data["content"]["text"]
            .as_str()
            .unwrap()
            .contains(rows[0]["tool_name"].as_str().unwrap())
    );
}

#[tokio::test]
async fn tool_responses_carry_name_and_exit_code() {
    let client = EskerClient::fixtures().await;
    let rows = fixture_rows(
        "SELECT event_id, tool_name, exit_code, text FROM events WHERE type = 'tool_response' AND exit_code IS NOT NULL ORDER BY event_id LIMIT 1",
    );
    let data = client.open(rows[0]["event_id"].as_str().unwrap()).await;
    assert_eq!(data["content"]["format"], "tool_response");
    assert_eq!(data["content"]["tool_name"], rows[0]["tool_name"]);
    assert!(
        data["content"]["tool_name"].is_string(),
        "tool responses name their tool"
    );
    assert_eq!(data["content"]["exit_code"], rows[0]["exit_code"]);
    assert_eq!(data["content"]["text"], rows[0]["text"]);
}

#[tokio::test]
async fn sub_agent_sessions_link_to_their_parent_and_back() {
    let client = EskerClient::fixtures().await;
    let rows = fixture_rows(
        "SELECT session_id, parent_session_id FROM sessions WHERE parent_session_id IS NOT NULL ORDER BY session_id LIMIT 1",
    );
    let child_id = rows[0]["session_id"].as_str().unwrap();
    let parent_id = rows[0]["parent_session_id"].as_str().unwrap();
    let child = client.open(child_id).await;
    assert_eq!(child["traversal"]["parent_session_id"], parent_id);
    let parent = client.open(parent_id).await;
    let children = strings_at(&parent["traversal"]["child_session_ids"], "");
    assert!(children.contains(&child_id.to_owned()), "{children:?}");
}

#[tokio::test]
async fn continuation_chains_link_previous_and_next_sessions() {
    let client = EskerClient::fixtures().await;
    let rows = fixture_rows(
        "SELECT session_id, next_session_id FROM sessions WHERE next_session_id IS NOT NULL ORDER BY session_id LIMIT 1",
    );
    let first_id = rows[0]["session_id"].as_str().unwrap();
    let next_id = rows[0]["next_session_id"].as_str().unwrap();
    let first = client.open(first_id).await;
    assert_eq!(first["traversal"]["next_session_id"], next_id);
    let next = client.open(next_id).await;
    assert_eq!(next["traversal"]["previous_session_id"], first_id);
}

#[tokio::test]
async fn rejected_ids_get_the_spec_error_codes() {
    let client = EskerClient::fixtures().await;
    let cases = [
        (json!({}), "invalid_request"),
        (Value::Null, "invalid_request"),
        (json!({"id": null}), "invalid_request"),
        (json!({"id": ""}), "invalid_request"),
        (json!({"id": "   "}), "invalid_request"),
        (json!({"id": 7}), "invalid_request"),
        (json!({"id": "session:x", "extra": 1}), "invalid_request"),
        (json!({"id": "not-a-valid-id"}), "invalid_id"),
        (json!({"id": "event:"}), "invalid_id"),
        (json!({"id": "message:abc"}), "invalid_id"),
        (
            json!({"id": format!("event:{}", "a".repeat(257))}),
            "invalid_id",
        ),
        (
            json!({"id": "event:evt_01J9DOESNOTEXIST000000000000"}),
            "not_found",
        ),
        (json!({"id": "turn:turn_01J9DOESNOTEXIST"}), "not_found"),
        (json!({"id": "session:ses_01J9DOESNOTEXIST"}), "not_found"),
    ];
    for (arguments, expected_code) in cases {
        let code = client.error_code("open", arguments.clone()).await;
        assert_eq!(code, expected_code, "{arguments}");
    }
}

#[tokio::test]
async fn error_envelopes_match_the_spec_examples() {
    let client = EskerClient::fixtures().await;
    let malformed = client
        .failure("open", json!({"id": "not-a-valid-id"}))
        .await;
    assert_eq!(malformed["request"], json!({"id": "not-a-valid-id"}));
    assert_eq!(
        malformed["error"],
        json!({"code": "invalid_id", "message": "id is not a valid Moraine MCP ID", "details": {"field": "id"}})
    );
    assert_eq!(malformed["performance"]["sla_target_ms"], 200);
    let missing = client
        .failure(
            "open",
            json!({"id": "event:evt_01J9DOESNOTEXIST000000000000"}),
        )
        .await;
    assert_eq!(
        missing["error"],
        json!({"code": "not_found", "message": "event not found", "details": {"id": "event:evt_01J9DOESNOTEXIST000000000000"}})
    );
}

/// The additive `usage` objects equal the tables' token sums (null where nothing is recorded).
#[tokio::test]
async fn sessions_and_turns_show_their_token_usage() {
    let client = EskerClient::fixtures().await;
    // `esker query --format json` leaves null columns out of a row.
    let usage_of = |row: &serde_json::Map<String, Value>| {
        let column = |name: &str| row.get(name).cloned().unwrap_or(Value::Null);
        if column("total_tokens").is_null() {
            return Value::Null;
        }
        json!({
            "input_tokens": column("input_tokens"),
            "cached_input_tokens": column("cached_input_tokens"),
            "output_tokens": column("output_tokens"),
            "reasoning_tokens": column("reasoning_tokens"),
            "total_tokens": column("total_tokens"),
        })
    };
    let sessions = fixture_rows(
        "SELECT session_id, models, input_tokens, cached_input_tokens, output_tokens, \
         reasoning_tokens, total_tokens FROM sessions ORDER BY session_id",
    );
    assert!(
        sessions.iter().any(|row| !row["total_tokens"].is_null()),
        "fixtures record usage"
    );
    for row in &sessions {
        let session_id = row["session_id"].as_str().unwrap();
        let data = client.success("open", json!({"id": session_id})).await["data"].clone();
        assert_eq!(data["session"]["usage"], usage_of(row), "{session_id}");
        let models: Value = serde_json::from_str(row["models"].as_str().unwrap()).unwrap();
        assert_eq!(data["session"]["models"], models);
        for turn in data["turns"].as_array().unwrap() {
            let turn_id = turn["id"].as_str().unwrap();
            let turn_row = &fixture_rows(&format!(
                "SELECT input_tokens, cached_input_tokens, output_tokens, reasoning_tokens, \
                 total_tokens FROM turns WHERE turn_id = '{turn_id}'"
            ))[0];
            assert_eq!(
                turn["usage"],
                usage_of(turn_row),
                "{turn_id} in open(session)"
            );
            let opened = client.success("open", json!({"id": turn_id})).await;
            assert_eq!(
                opened["data"]["turn"]["usage"],
                usage_of(turn_row),
                "open({turn_id})"
            );
        }
    }
    let listed = client
        .success(
            "list_sessions",
            json!({"start_datetime": "2000-01-01T00:00:00Z", "end_datetime": "2100-01-01T00:00:00Z", "limit": 50}),
        )
        .await;
    for item in listed["data"]["sessions"].as_array().unwrap() {
        let row = sessions
            .iter()
            .find(|row| row["session_id"] == item["id"])
            .expect("listed session is in the table");
        assert_eq!(item["session"]["usage"], usage_of(row));
    }
}
