//! Golden files pinning the shape of every envelope (`tests/golden/*.json`). Success
//! envelopes are reduced to their shape (keys, value kinds, ids and timestamps by kind,
//! arrays by their first item) so fixture edits do not churn them; error envelopes are pinned
//! verbatim except timing. Rewrite on purpose with `ESKER_UPDATE_GOLDEN=1`.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::client::{EskerClient, fixture_string};
use crate::support::manifest_dir;

/// Keys whose values are part of the contract and kept verbatim.
const VERBATIM_KEYS: [&str; 9] = [
    "schema_version",
    "sla_target_ms",
    "tool",
    "kind",
    "format",
    "code",
    "message",
    "field",
    "sort",
];

fn golden_path(name: &str) -> PathBuf {
    manifest_dir()
        .join("tests")
        .join("golden")
        .join(format!("{name}.json"))
}

/// Compares `actual` with the golden file, or rewrites it under `ESKER_UPDATE_GOLDEN=1`.
fn assert_golden(name: &str, actual: &Value) {
    let mut actual = actual.clone();
    mask_observation_times(&mut actual);
    let actual = &actual;
    let path = golden_path(name);
    let rendered = format!("{}\n", serde_json::to_string_pretty(actual).unwrap());
    if std::env::var("ESKER_UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::write(&path, rendered).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing {}; run with ESKER_UPDATE_GOLDEN=1", path.display()));
    assert_eq!(
        rendered, expected,
        "{name} envelope changed; if on purpose, rerun with ESKER_UPDATE_GOLDEN=1"
    );
}

/// `observed_at_unix_ms` (when coverage was read) as its kind: it differs on every call.
fn mask_observation_times(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                if key == "observed_at_unix_ms" {
                    *field = json!("<integer>");
                } else {
                    mask_observation_times(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_observation_times),
        _ => {}
    }
}

/// The shape of a success envelope; its `request` is kept, ids masked.
fn envelope_shape(envelope: &Value) -> Value {
    let mut shape = shape_of(envelope, None);
    shape["request"] = mask_ids(&envelope["request"]);
    shape
}

/// `value` with every id replaced by its kind.
fn mask_ids(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(name, field)| (name.clone(), mask_ids(field)))
                .collect::<Map<_, _>>(),
        ),
        Value::String(text) if string_kind(text).ends_with("-id>") => json!(string_kind(text)),
        other => other.clone(),
    }
}

/// The shape of a value: strings by kind, numbers and booleans by type, arrays by first item.
fn shape_of(value: &Value, key: Option<&str>) -> Value {
    if key.is_some_and(|key| VERBATIM_KEYS.contains(&key)) && !value.is_object() {
        return value.clone();
    }
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(name, field)| (name.clone(), shape_of(field, Some(name))))
                .collect::<Map<_, _>>(),
        ),
        Value::Array(items) => Value::Array(
            items
                .first()
                .map(|item| shape_of(item, key))
                .into_iter()
                .collect(),
        ),
        Value::String(text) => json!(string_kind(text)),
        Value::Number(number) if number.is_f64() => json!("<number>"),
        Value::Number(_) => json!("<integer>"),
        Value::Bool(_) => json!("<bool>"),
        Value::Null => Value::Null,
    }
}

fn string_kind(text: &str) -> &'static str {
    let is_timestamp = chrono::DateTime::parse_from_rfc3339(text).is_ok() && text.ends_with('Z');
    match text.split_once(':') {
        Some(("session", _)) => "<session-id>",
        Some(("turn", _)) => "<turn-id>",
        Some(("event", _)) => "<event-id>",
        _ if is_timestamp => "<timestamp>",
        _ => "<string>",
    }
}

/// Timing varies run to run; everything else of an error envelope is pinned.
fn without_timing(mut envelope: Value) -> Value {
    envelope["performance"]["elapsed_ms"] = json!("<integer>");
    envelope["performance"]["met_sla"] = json!("<bool>");
    envelope
}

#[tokio::test]
async fn search_sessions_envelopes() {
    let client = EskerClient::fixtures().await;
    let success = client
        .success("search_sessions", json!({"query": "parquet", "n_hits": 2}))
        .await;
    assert_golden("search_sessions_success", &envelope_shape(&success));
    let empty = client
        .success(
            "search_sessions",
            json!({"query": "xyzzyplughfrobnicate", "n_hits": 5}),
        )
        .await;
    assert_golden("search_sessions_empty", &without_timing(empty));
    let unsupported = client
        .failure(
            "search_sessions",
            json!({"query": "migration", "event_types": ["user_input", "debug_trace"]}),
        )
        .await;
    assert_golden(
        "search_sessions_unsupported_event_type",
        &without_timing(unsupported),
    );
    let blank = client
        .failure("search_sessions", json!({"query": "   "}))
        .await;
    assert_golden("search_sessions_blank_query", &without_timing(blank));
}

#[tokio::test]
async fn open_envelopes() {
    let client = EskerClient::fixtures().await;
    let session_id = fixture_string(
        "SELECT session_id FROM sessions WHERE parent_session_id IS NULL ORDER BY turn_count DESC, session_id LIMIT 1",
    );
    let session = client.success("open", json!({"id": session_id})).await;
    assert_golden("open_session", &envelope_shape(&session));
    let turn_id = fixture_string(
        "SELECT turn_id FROM turns WHERE completed AND user_input_event_id IS NOT NULL ORDER BY turn_id LIMIT 1",
    );
    let turn = client.success("open", json!({"id": turn_id})).await;
    assert_golden("open_turn", &envelope_shape(&turn));
    let call_id = fixture_string(
        "SELECT event_id FROM events WHERE type = 'tool_call' AND originating_model IS NOT NULL \
         ORDER BY event_id LIMIT 1",
    );
    let call = client.success("open", json!({"id": call_id})).await;
    assert_golden("open_event_tool_call", &envelope_shape(&call));
    let response_id = fixture_string(
        "SELECT event_id FROM events WHERE type = 'tool_response' AND exit_code IS NOT NULL ORDER BY event_id LIMIT 1",
    );
    let response = client.success("open", json!({"id": response_id})).await;
    assert_golden("open_event_tool_response", &envelope_shape(&response));
    let missing = client
        .failure(
            "open",
            json!({"id": "event:evt_01J9DOESNOTEXIST000000000000"}),
        )
        .await;
    assert_golden("open_not_found", &without_timing(missing));
    let malformed = client
        .failure("open", json!({"id": "not-a-valid-id"}))
        .await;
    assert_golden("open_invalid_id", &without_timing(malformed));
}

#[tokio::test]
async fn list_sessions_envelopes() {
    let client = EskerClient::fixtures().await;
    let success = client
        .success("list_sessions", json!({"start_datetime": "2000-01-01T00:00:00Z", "end_datetime": "2100-01-01T00:00:00Z", "limit": 1}))
        .await;
    assert_golden("list_sessions_success", &envelope_shape(&success));
    let naive = client
        .failure("list_sessions", json!({"start_datetime": "2026-04-30T09:00:00", "end_datetime": "2026-04-30T13:00:00-04:00"}))
        .await;
    assert_golden("list_sessions_naive_datetime", &without_timing(naive));
}
