//! `search_sessions`: every row of the spec's input permutation matrix, the ordering rule
//! (score desc, timestamp desc, id asc), scores, snippets and empty results.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::client::{EskerClient, fixture_string, fixture_strings, strings_at};
use crate::support::index_into;

const DEFAULT_TYPES: [&str; 3] = ["user_input", "assistant_response", "tool_response"];

/// The longest alphabetic word (at least 5 letters) of the first event of `event_type`,
/// in `session_id` when given: a query guaranteed to match that event.
fn word_from_event(event_type: &str, session_id: Option<&str>) -> (String, String) {
    let scope = session_id
        .map(|id| format!("AND session_id = '{id}'"))
        .unwrap_or_default();
    let rows = super::client::fixture_rows(&format!(
        "SELECT event_id, text FROM events WHERE type = '{event_type}' {scope} \
         AND character_length(text) > 20 ORDER BY event_id LIMIT 1"
    ));
    let row = rows
        .first()
        .unwrap_or_else(|| panic!("no {event_type} event"));
    let text = row["text"].as_str().unwrap();
    let word = text
        .split(|character: char| !character.is_ascii_alphabetic())
        .filter(|word| word.len() >= 5)
        .max_by_key(|word| word.len())
        .unwrap_or_else(|| panic!("no word in {text}"))
        .to_lowercase();
    (row["event_id"].as_str().unwrap().to_owned(), word)
}

fn types_of(data: &Value) -> Vec<String> {
    strings_at(&data["results"], "/event/type")
}

#[tokio::test]
async fn query_only_searches_everything_with_defaults() {
    let client = EskerClient::fixtures().await;
    let envelope = client
        .success("search_sessions", json!({"query": "  parquet migration  "}))
        .await;
    assert_eq!(
        envelope["request"],
        json!({
            "query": "parquet migration",
            "within_id": null,
            "event_types": DEFAULT_TYPES,
            "n_hits": 10,
        })
    );
    let data = &envelope["data"];
    assert_eq!(data["limit"], 10);
    assert_eq!(
        data["result_count"], 10,
        "fixtures have more than 10 matches"
    );
    assert_eq!(data["truncated"], true);
    assert!(
        types_of(data)
            .iter()
            .all(|kind| DEFAULT_TYPES.contains(&kind.as_str()))
    );
    let sessions: std::collections::HashSet<String> = strings_at(&data["results"], "/session/id")
        .into_iter()
        .collect();
    assert!(sessions.len() > 1, "hits come from several sessions");
    assert_eq!(envelope["performance"]["sla_target_ms"], 750);
}

#[tokio::test]
async fn n_hits_is_honored_exactly() {
    let client = EskerClient::fixtures().await;
    for n_hits in [1, 2, 7] {
        let data = client
            .search(json!({"query": "parquet", "n_hits": n_hits}))
            .await;
        assert_eq!(data["result_count"], n_hits);
        assert_eq!(data["limit"], n_hits);
        assert_eq!(data["results"].as_array().unwrap().len(), n_hits);
        let ranks: Vec<u64> = data["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|hit| hit["rank"].as_u64().unwrap())
            .collect();
        assert_eq!(ranks, (1..=n_hits as u64).collect::<Vec<_>>());
    }
    let everything = client.search(json!({"query": "the", "n_hits": 50})).await;
    let count = everything["result_count"].as_u64().unwrap();
    assert!(count <= 50);
    assert_eq!(everything["truncated"], count == 50);
}

#[tokio::test]
async fn explicit_event_types_are_honored_exactly() {
    let client = EskerClient::fixtures().await;
    for event_type in ["reasoning", "tool_call", "system", "runtime"] {
        let (event_id, word) = word_from_event(event_type, None);
        let data = client
            .search(json!({"query": word, "event_types": [event_type], "n_hits": 50}))
            .await;
        assert!(
            types_of(&data).iter().all(|kind| kind == event_type),
            "{data:#}"
        );
        assert!(
            strings_at(&data["results"], "/id").contains(&event_id),
            "{event_type} event {event_id} is found by its word {word}"
        );
    }
}

#[tokio::test]
async fn default_search_excludes_reasoning_tool_calls_and_runtime() {
    let client = EskerClient::fixtures().await;
    for event_type in ["reasoning", "tool_call", "runtime", "system"] {
        let (event_id, word) = word_from_event(event_type, None);
        let data = client.search(json!({"query": word, "n_hits": 50})).await;
        assert!(
            !strings_at(&data["results"], "/id").contains(&event_id),
            "{event_type} event {event_id} must not match by default"
        );
        assert!(
            types_of(&data)
                .iter()
                .all(|kind| DEFAULT_TYPES.contains(&kind.as_str()))
        );
    }
}

#[tokio::test]
async fn event_types_are_deduplicated_and_canonically_ordered() {
    let client = EskerClient::fixtures().await;
    let envelope = client
        .success(
            "search_sessions",
            json!({"query": "parquet", "event_types": ["tool_response", "tool_call", "reasoning", "tool_call"]}),
        )
        .await;
    assert_eq!(
        envelope["request"]["event_types"],
        json!(["reasoning", "tool_call", "tool_response"])
    );
}

fn busiest_session() -> String {
    fixture_string(
        "SELECT session_id FROM events WHERE lower(text) LIKE '%parquet%' \
         GROUP BY session_id ORDER BY count(*) DESC, session_id LIMIT 1",
    )
}

fn busiest_turn() -> String {
    fixture_string(
        "SELECT turn_id FROM events WHERE lower(text) LIKE '%parquet%' \
         AND type IN ('user_input', 'assistant_response', 'tool_response') \
         GROUP BY turn_id ORDER BY count(*) DESC, turn_id LIMIT 1",
    )
}

#[tokio::test]
async fn within_a_session_stays_in_the_session() {
    let client = EskerClient::fixtures().await;
    let session_id = busiest_session();
    let envelope = client
        .success(
            "search_sessions",
            json!({"query": "parquet", "within_id": session_id, "n_hits": 50}),
        )
        .await;
    let data = &envelope["data"];
    assert!(data["result_count"].as_u64().unwrap() > 1);
    assert!(
        strings_at(&data["results"], "/session/id")
            .iter()
            .all(|id| *id == session_id)
    );
    assert!(
        strings_at(&data["results"], "/open/session_id")
            .iter()
            .all(|id| *id == session_id)
    );
    assert!(
        types_of(data)
            .iter()
            .all(|kind| DEFAULT_TYPES.contains(&kind.as_str()))
    );
    assert_eq!(envelope["performance"]["sla_target_ms"], 500);
}

#[tokio::test]
async fn within_a_turn_stays_in_the_turn() {
    let client = EskerClient::fixtures().await;
    let turn_id = busiest_turn();
    let envelope = client
        .success(
            "search_sessions",
            json!({"query": "parquet", "within_id": turn_id, "n_hits": 50}),
        )
        .await;
    let data = &envelope["data"];
    assert!(data["result_count"].as_u64().unwrap() >= 1);
    assert!(
        strings_at(&data["results"], "/turn/id")
            .iter()
            .all(|id| *id == turn_id)
    );
    assert!(
        types_of(data)
            .iter()
            .all(|kind| DEFAULT_TYPES.contains(&kind.as_str()))
    );
    assert_eq!(envelope["performance"]["sla_target_ms"], 300);
}

#[tokio::test]
async fn within_a_session_with_event_types() {
    let client = EskerClient::fixtures().await;
    let session_id = busiest_session();
    let data = client
        .search(json!({"query": "parquet", "within_id": session_id, "event_types": ["tool_call"], "n_hits": 50}))
        .await;
    assert!(data["result_count"].as_u64().unwrap() >= 1, "{data:#}");
    assert!(types_of(&data).iter().all(|kind| kind == "tool_call"));
    assert!(
        strings_at(&data["results"], "/session/id")
            .iter()
            .all(|id| *id == session_id)
    );
}

#[tokio::test]
async fn within_a_turn_with_event_types() {
    let client = EskerClient::fixtures().await;
    let turn_id = busiest_turn();
    let everything = client
        .search(json!({"query": "parquet", "within_id": turn_id, "event_types": ["user_input", "assistant_response", "reasoning", "tool_call", "tool_response"], "n_hits": 50}))
        .await;
    let only_calls = client
        .search(json!({"query": "parquet", "within_id": turn_id, "event_types": ["tool_call"], "n_hits": 50}))
        .await;
    assert!(types_of(&only_calls).iter().all(|kind| kind == "tool_call"));
    assert!(
        strings_at(&only_calls["results"], "/turn/id")
            .iter()
            .all(|id| *id == turn_id)
    );
    let calls_in_everything = types_of(&everything)
        .iter()
        .filter(|kind| *kind == "tool_call")
        .count();
    assert_eq!(
        only_calls["result_count"].as_u64().unwrap() as usize,
        calls_in_everything
    );
}

#[tokio::test]
async fn a_scope_with_no_matches_is_an_empty_success() {
    let client = EskerClient::fixtures().await;
    let session_id = busiest_session();
    let data = client
        .search(json!({"query": "xyzzyplughfrobnicate", "within_id": session_id}))
        .await;
    assert_eq!(
        data,
        json!({"result_count": 0, "limit": 10, "truncated": false, "results": []})
    );
    let everywhere = client
        .search(json!({"query": "xyzzyplughfrobnicate", "n_hits": 5}))
        .await;
    assert_eq!(
        everywhere,
        json!({"result_count": 0, "limit": 5, "truncated": false, "results": []})
    );
}

#[tokio::test]
async fn rejected_inputs_get_the_spec_error_codes() {
    let client = EskerClient::fixtures().await;
    let event_id = fixture_string("SELECT event_id FROM events ORDER BY event_id LIMIT 1");
    let cases = [
        (
            json!({"query": "x", "within_id": event_id}),
            "invalid_request",
        ),
        (json!({"query": "   "}), "invalid_request"),
        (json!({"query": ""}), "invalid_request"),
        (json!({"query": 42}), "invalid_request"),
        (json!({}), "invalid_request"),
        (Value::Null, "invalid_request"),
        (json!({"query": "x".repeat(4097)}), "invalid_request"),
        (
            json!({"query": "x", "within_id": "session:ses_DOESNOTEXIST"}),
            "not_found",
        ),
        (
            json!({"query": "x", "within_id": "turn:turn_DOESNOTEXIST"}),
            "not_found",
        ),
        (
            json!({"query": "x", "within_id": "not-an-id"}),
            "invalid_id",
        ),
        (
            json!({"query": "x", "within_id": "session:has space"}),
            "invalid_id",
        ),
        (json!({"query": "x", "within_id": "   "}), "invalid_request"),
        (json!({"query": "x", "event_types": []}), "invalid_request"),
        (
            json!({"query": "x", "event_types": "user_input"}),
            "invalid_request",
        ),
        (
            json!({"query": "x", "event_types": ["user_input", "debug_trace"]}),
            "unsupported_event_type",
        ),
        (
            json!({"query": "x", "event_types": ["unknown"]}),
            "unsupported_event_type",
        ),
        (json!({"query": "x", "n_hits": 0}), "invalid_request"),
        (json!({"query": "x", "n_hits": -3}), "invalid_request"),
        (json!({"query": "x", "n_hits": 51}), "invalid_request"),
        (json!({"query": "x", "n_hits": 2.5}), "invalid_request"),
        (json!({"query": "x", "n_hits": "10"}), "invalid_request"),
        (json!({"query": "x", "n_hits": true}), "invalid_request"),
        (json!({"query": "x", "limit": 5}), "invalid_request"),
    ];
    for (arguments, expected_code) in cases {
        let code = client
            .error_code("search_sessions", arguments.clone())
            .await;
        assert_eq!(code, expected_code, "{arguments}");
    }
}

#[tokio::test]
async fn error_messages_follow_the_spec() {
    let client = EskerClient::fixtures().await;
    let event_id = fixture_string("SELECT event_id FROM events ORDER BY event_id LIMIT 1");
    let scoped_to_event = client
        .failure(
            "search_sessions",
            json!({"query": "x", "within_id": event_id}),
        )
        .await;
    assert_eq!(
        scoped_to_event["error"]["message"],
        "within_id accepts session and turn IDs, not event IDs"
    );
    let blank = client
        .failure("search_sessions", json!({"query": "   "}))
        .await;
    assert_eq!(blank["request"], json!({"query": "   "}));
    assert_eq!(
        blank["error"]["message"],
        "query must be a non-empty string"
    );
    assert_eq!(blank["error"]["details"], json!({"field": "query"}));
    let missing = client
        .failure(
            "search_sessions",
            json!({"query": "x", "within_id": "turn:turn_DOESNOTEXIST"}),
        )
        .await;
    assert_eq!(missing["error"]["details"]["id"], "turn:turn_DOESNOTEXIST");
    assert_eq!(
        missing["request"]["n_hits"], 10,
        "later errors echo the canonical request"
    );
}

/// (score desc, timestamp desc, id asc) holds between every pair of neighbours.
fn assert_ranked(results: &[Value]) {
    for pair in results.windows(2) {
        let (first, second) = (&pair[0], &pair[1]);
        let score = |hit: &Value| hit["score"].as_f64().unwrap();
        let timestamp = |hit: &Value| hit["event"]["timestamp"].as_str().unwrap_or("").to_owned();
        let id = |hit: &Value| hit["id"].as_str().unwrap().to_owned();
        let in_order = score(first) > score(second)
            || (score(first) == score(second)
                && (timestamp(first) > timestamp(second)
                    || (timestamp(first) == timestamp(second) && id(first) < id(second))));
        assert!(in_order, "out of order:\n{first:#}\n{second:#}");
    }
}

#[tokio::test]
async fn results_follow_the_ordering_rule_with_normalized_scores() {
    let client = EskerClient::fixtures().await;
    for query in ["the", "parquet migration test", "fix"] {
        let data = client
            .search(json!({"query": query, "n_hits": 50, "event_types": ["user_input", "assistant_response", "reasoning", "tool_call", "tool_response", "compaction", "system", "runtime"]}))
            .await;
        let results = data["results"].as_array().unwrap();
        assert!(!results.is_empty());
        assert!(
            results
                .iter()
                .all(|hit| (0.0..=1.0).contains(&hit["score"].as_f64().unwrap()))
        );
        assert_ranked(results);
    }
}

/// A store with one Codex session whose four prompts are the same text: equal scores, two of
/// them at the same instant, so both tie-breaks decide.
fn tie_store() -> PathBuf {
    let logs = tempfile::tempdir().expect("temp dir").keep();
    let session = "0199aaaa-0000-7000-8000-000000000001";
    let mut lines = vec![
        json!({"timestamp": "2026-05-01T10:00:00.000Z", "type": "session_meta", "payload": {"id": session, "timestamp": "2026-05-01T10:00:00.000Z", "cwd": "/tmp/ties", "originator": "codex_cli_rs", "cli_version": "0.116.0", "source": "cli"}}),
    ];
    for time in ["10:00:01", "10:00:05", "10:00:03", "10:00:03"] {
        lines.push(json!({"timestamp": format!("2026-05-01T{time}.000Z"), "type": "event_msg", "payload": {"type": "user_message", "message": "zanzibar quokka", "images": []}}));
    }
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(
        logs.join(format!("rollout-2026-05-01T10-00-00-{session}.jsonl")),
        text,
    )
    .unwrap();
    let data_dir = tempfile::tempdir().expect("temp dir").keep();
    index_into(&data_dir, &[&logs]);
    data_dir
}

#[tokio::test]
async fn ties_break_on_newest_timestamp_then_smallest_id() {
    let data_dir = tie_store();
    let client = EskerClient::start(&data_dir).await;
    let data = client.search(json!({"query": "zanzibar quokka"})).await;
    let results = data["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    let scores: Vec<f64> = results
        .iter()
        .map(|hit| hit["score"].as_f64().unwrap())
        .collect();
    assert!(
        scores.iter().all(|score| *score == scores[0]),
        "identical texts tie: {scores:?}"
    );
    let timestamps = strings_at(&data["results"], "/event/timestamp");
    assert_eq!(
        timestamps,
        [
            "2026-05-01T10:00:05.000Z",
            "2026-05-01T10:00:03.000Z",
            "2026-05-01T10:00:03.000Z",
            "2026-05-01T10:00:01.000Z"
        ]
    );
    let ids = strings_at(&data["results"], "/id");
    assert!(ids[1] < ids[2], "same instant: smaller id first: {ids:?}");
    assert_ranked(results);
}

#[tokio::test]
async fn snippets_are_short_and_centred_on_the_match() {
    let client = EskerClient::fixtures().await;
    let rows = super::client::fixture_rows(
        "SELECT event_id, turn_id, type, text FROM events \
         WHERE type IN ('user_input', 'assistant_response', 'tool_response') \
         AND character_length(text) > 400 ORDER BY character_length(text) DESC, event_id LIMIT 1",
    );
    let row = rows
        .first()
        .expect("fixtures have an event longer than a snippet");
    let text = row["text"].as_str().unwrap();
    let tail = &text[text.len() - text.len() / 4..];
    let word = tail
        .split(|character: char| !character.is_ascii_alphabetic())
        .filter(|word| word.len() >= 4)
        .max_by_key(|word| word.len())
        .expect("a word near the end")
        .to_lowercase();
    let data = client
        .search(json!({"query": word, "within_id": row["turn_id"], "event_types": [row["type"]], "n_hits": 50}))
        .await;
    let hit = data["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|hit| hit["id"] == row["event_id"])
        .unwrap_or_else(|| panic!("{word} finds {}", row["event_id"]));
    let snippet = hit["snippet"]["text"].as_str().unwrap();
    assert!(snippet.chars().count() <= 300, "{snippet}");
    assert_eq!(hit["snippet"]["truncated"], true);
    assert!(
        snippet.to_lowercase().contains(&word),
        "snippet {snippet:?} shows {word}"
    );
    assert!(
        !text.starts_with(snippet.trim_end_matches("...")),
        "not just the start of the text"
    );
}

#[tokio::test]
async fn every_hit_is_consistent_with_the_tables() {
    let client = EskerClient::fixtures().await;
    let data = client
        .search(json!({"query": "parquet", "n_hits": 50}))
        .await;
    for hit in data["results"].as_array().unwrap() {
        assert_eq!(hit["id"], hit["event"]["id"]);
        assert_eq!(hit["open"]["event_id"], hit["event"]["id"]);
        assert_eq!(hit["open"]["turn_id"], hit["turn"]["id"]);
        assert_eq!(hit["open"]["session_id"], hit["session"]["id"]);
        assert!(
            hit["session"]["title"]
                .as_str()
                .is_some_and(|title| !title.is_empty())
        );
        let event_id = hit["id"].as_str().unwrap();
        let truth = fixture_strings(&format!(
            "SELECT concat(turn_id, ' ', session_id, ' ', CAST(ordinal AS VARCHAR), ' ', CAST(turn_ordinal AS VARCHAR)) \
             FROM events WHERE event_id = '{event_id}'"
        ));
        let expected = format!(
            "{} {} {} {}",
            hit["turn"]["id"].as_str().unwrap(),
            hit["session"]["id"].as_str().unwrap(),
            hit["event"]["ordinal"],
            hit["turn"]["ordinal"]
        );
        assert_eq!(truth, [expected]);
    }
}
