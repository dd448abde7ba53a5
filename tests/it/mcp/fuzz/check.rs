//! Is one reply a well-formed envelope? Checks the `CallToolResult` wrapper, the common
//! envelope keys, the error object or the tool's data, and returns what the reply says:
//! success, or the error code.

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use super::cases::Case;
use super::oracle::id_kind;

const ERROR_SCHEMA: &str = "moraine.mcp.error.v1";
const ERROR_CODES: [&str; 6] = [
    "invalid_request",
    "invalid_id",
    "not_found",
    "unsupported_event_type",
    "deadline_exceeded",
    "internal_error",
];
/// "Concise": an error message (and so the text summary) stays short whatever the input.
const MAX_MESSAGE_CHARS: usize = 512;

/// What a well-formed reply said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Success,
    Error(String),
}

type Checked<T> = Result<T, String>;

pub fn reply(case: &Case, result: &CallToolResult) -> Checked<Answer> {
    let envelope = result
        .structured_content
        .as_ref()
        .and_then(Value::as_object)
        .ok_or("no structuredContent object")?;
    let text = summary_text(result)?;
    common_keys(case, envelope)?;
    if envelope["schema_version"] == ERROR_SCHEMA {
        ensure(
            result.is_error == Some(true),
            "error envelope without isError: true",
        )?;
        error_object(envelope, &text).map(Answer::Error)
    } else {
        ensure(
            result.is_error != Some(true),
            "success envelope with isError: true",
        )?;
        success_data(case, envelope)?;
        Ok(Answer::Success)
    }
}

fn ensure(condition: bool, complaint: &str) -> Checked<()> {
    if condition {
        Ok(())
    } else {
        Err(complaint.to_owned())
    }
}

/// The text block every result carries, short and non-empty.
fn summary_text(result: &CallToolResult) -> Checked<String> {
    let text = result
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.clone())
        .ok_or("no text content")?;
    ensure(!text.trim().is_empty(), "empty text content")?;
    Ok(text)
}

/// Exactly the spec's keys; `tool`, `request`, `warnings`, `performance` well-typed.
fn common_keys(case: &Case, envelope: &Map<String, Value>) -> Checked<()> {
    let is_error = envelope.get("schema_version") == Some(&Value::from(ERROR_SCHEMA));
    let payload = if is_error { "error" } else { "data" };
    let mut keys: Vec<&str> = envelope.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut expected = vec![
        "performance",
        "request",
        "schema_version",
        "tool",
        "warnings",
    ];
    expected.push(payload);
    expected.sort_unstable();
    ensure(keys == expected, &format!("envelope keys {keys:?}"))?;
    if !is_error {
        let schema = format!("moraine.mcp.{}.v1", case.tool);
        ensure(
            envelope["schema_version"] == schema.as_str(),
            "wrong schema_version",
        )?;
    }
    ensure(envelope["tool"] == case.tool, "wrong tool")?;
    ensure(envelope["request"].is_object(), "request is not an object")?;
    let warnings = envelope["warnings"]
        .as_array()
        .ok_or("warnings is not an array")?;
    ensure(
        warnings.iter().all(Value::is_string),
        "a warning is not a string",
    )?;
    performance(&envelope["performance"])
}

fn performance(performance: &Value) -> Checked<()> {
    let elapsed = performance["elapsed_ms"].as_u64().ok_or("elapsed_ms")?;
    let target = performance["sla_target_ms"]
        .as_u64()
        .ok_or("sla_target_ms")?;
    let met = performance["met_sla"].as_bool().ok_or("met_sla")?;
    ensure(target > 0, "sla_target_ms is zero")?;
    ensure(
        met == (elapsed <= target),
        "met_sla disagrees with elapsed_ms",
    )?;
    ensure(
        performance.as_object().is_some_and(|map| map.len() == 3),
        "performance keys",
    )
}

/// `{code, message, details}` with a spec code and a concise message; returns the code.
fn error_object(envelope: &Map<String, Value>, text: &str) -> Checked<String> {
    let error = envelope["error"]
        .as_object()
        .ok_or("error is not an object")?;
    ensure(error.len() == 3, "error keys")?;
    let code = error["code"].as_str().ok_or("error.code is not a string")?;
    ensure(
        ERROR_CODES.contains(&code),
        &format!("unknown error code {code}"),
    )?;
    let message = error["message"].as_str().ok_or("error.message")?;
    ensure(!message.trim().is_empty(), "empty error message")?;
    let length = message.chars().count();
    ensure(
        length <= MAX_MESSAGE_CHARS,
        &format!("{length}-character error message"),
    )?;
    ensure(
        error["details"].is_object(),
        "error.details is not an object",
    )?;
    ensure(text.contains(code), "text summary does not name the code")?;
    ensure(
        text.chars().count() <= 2 * MAX_MESSAGE_CHARS,
        "text summary is not concise",
    )?;
    ensure(
        envelope["warnings"] == Value::Array(vec![]),
        "warnings on an error",
    )?;
    Ok(code.to_owned())
}

/// The tool's payload agrees with its canonical request.
fn success_data(case: &Case, envelope: &Map<String, Value>) -> Checked<()> {
    let (request, data) = (&envelope["request"], &envelope["data"]);
    ensure(data.is_object(), "data is not an object")?;
    match case.tool {
        "search_sessions" => search_data(request, data),
        "open" => open_data(case, request, data),
        _ => list_data(request, data),
    }
}

fn keys_of(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .map(|map| map.keys().map(String::as_str).collect())
        .unwrap_or_default();
    keys.sort_unstable();
    keys
}

fn search_data(request: &Value, data: &Value) -> Checked<()> {
    let request_keys = ["event_types", "n_hits", "query", "within_id"];
    ensure(
        keys_of(request) == request_keys,
        "canonical search request keys",
    )?;
    let results = data["results"].as_array().ok_or("results")?;
    ensure(data["result_count"] == results.len(), "result_count")?;
    ensure(data["limit"] == request["n_hits"], "limit is not n_hits")?;
    ensure(
        results.len() as u64 <= request["n_hits"].as_u64().unwrap_or(0),
        "over n_hits",
    )?;
    let types = request["event_types"].as_array().ok_or("event_types")?;
    for (index, hit) in results.iter().enumerate() {
        ensure(hit["rank"] == index + 1, "ranks are not 1..n")?;
        let score = hit["score"].as_f64().ok_or("score")?;
        ensure((0.0..=1.0).contains(&score), "score outside [0, 1]")?;
        ensure(
            hit["id"] == hit["open"]["event_id"],
            "hit id is not open.event_id",
        )?;
        ensure(
            types.contains(&hit["event"]["type"]),
            "hit of an unrequested type",
        )?;
        in_scope(request, hit)?;
    }
    Ok(())
}

fn in_scope(request: &Value, hit: &Value) -> Checked<()> {
    let Some(within) = request["within_id"].as_str() else {
        return Ok(());
    };
    let scope_of_hit = match id_kind(within) {
        Some("turn") => &hit["open"]["turn_id"],
        _ => &hit["open"]["session_id"],
    };
    ensure(scope_of_hit == within, "hit outside within_id")
}

fn open_data(case: &Case, request: &Value, data: &Value) -> Checked<()> {
    let id = case.arguments["id"]
        .as_str()
        .ok_or("opened a non-string id")?;
    ensure(
        request == &serde_json::json!({ "id": id }),
        "canonical open request",
    )?;
    let kind = id_kind(id).ok_or("opened a malformed id")?;
    ensure(data["kind"] == kind, "data.kind is not the id's kind")?;
    ensure(data[kind]["id"] == id, "opened another object")
}

fn list_data(request: &Value, data: &Value) -> Checked<()> {
    let request_keys = [
        "cursor",
        "end_datetime",
        "limit",
        "mode",
        "sort",
        "start_datetime",
    ];
    ensure(
        keys_of(request) == request_keys,
        "canonical list request keys",
    )?;
    let sessions = data["sessions"].as_array().ok_or("sessions")?;
    ensure(data["result_count"] == sessions.len(), "result_count")?;
    ensure(data["limit"] == request["limit"], "limit")?;
    ensure(
        sessions.len() as u64 <= request["limit"].as_u64().unwrap_or(0),
        "over limit",
    )?;
    let first_rank = sessions.first().and_then(|first| first["rank"].as_u64());
    ensure(
        request["cursor"].is_string() || first_rank.is_none_or(|rank| rank == 1),
        "first rank",
    )?;
    for pair in sessions.windows(2) {
        let consecutive = pair[0]["rank"].as_u64().map(|rank| rank + 1) == pair[1]["rank"].as_u64();
        ensure(consecutive, "ranks are not consecutive")?;
    }
    for listed in sessions {
        ensure(
            id_kind(listed["open"]["session_id"].as_str().unwrap_or("")) == Some("session"),
            "open.session_id",
        )?;
    }
    let truncated = data["truncated"].as_bool().ok_or("truncated")?;
    ensure(
        truncated == data["next_cursor"].is_string(),
        "next_cursor iff truncated",
    )
}
