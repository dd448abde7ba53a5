//! `list_sessions`: every row of the spec's input permutation matrix, window boundaries
//! (inclusive start, exclusive end), sorting, and keyset pagination across pages.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};

use super::client::{EskerClient, fixture_rows, strings_at};

const EVERYTHING_START: &str = "2000-01-01T00:00:00Z";
const EVERYTHING_END: &str = "2100-01-01T00:00:00+00:00";

/// A session's id and its window, from the table.
struct SessionTimes {
    id: String,
    started_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

fn session_times() -> Vec<SessionTimes> {
    fixture_rows(
        "SELECT session_id, CAST(started_at AS BIGINT) AS started, CAST(updated_at AS BIGINT) AS updated \
         FROM sessions WHERE started_at IS NOT NULL AND updated_at IS NOT NULL",
    )
    .into_iter()
    .map(|row| SessionTimes {
        id: row["session_id"].as_str().unwrap().to_owned(),
        started_at: DateTime::from_timestamp_nanos(row["started"].as_i64().unwrap()),
        updated_at: DateTime::from_timestamp_nanos(row["updated"].as_i64().unwrap()),
    })
    .collect()
}

fn rfc3339(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Nanos, true)
}

fn window(start: &str, end: &str) -> Value {
    json!({"start_datetime": start, "end_datetime": end})
}

fn with(mut arguments: Value, extra: Value) -> Value {
    for (key, value) in extra.as_object().unwrap() {
        arguments[key] = value.clone();
    }
    arguments
}

/// (updated_at, id) of each listed session, in listing order.
fn keys(data: &Value) -> Vec<(String, String)> {
    data["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|listed| {
            (
                listed["session"]["updated_at"].as_str().unwrap().to_owned(),
                listed["id"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_window_lists_the_overlapping_sessions_newest_first() {
    let client = EskerClient::fixtures().await;
    let envelope = client
        .success(
            "list_sessions",
            window("2000-01-01T00:00:00-04:00", EVERYTHING_END),
        )
        .await;
    assert_eq!(
        envelope["request"],
        json!({
            "start_datetime": "2000-01-01T04:00:00.000Z",
            "end_datetime": "2100-01-01T00:00:00.000Z",
            "limit": 20,
            "cursor": null,
            "mode": null,
            "sort": "desc",
        })
    );
    let data = &envelope["data"];
    let mut expected: Vec<String> = session_times()
        .into_iter()
        .map(|session| session.id)
        .collect();
    expected.sort();
    let mut listed = strings_at(&data["sessions"], "/id");
    assert_eq!(data["result_count"], expected.len().min(20));
    let listing_keys = keys(data);
    let mut sorted_desc = listing_keys.clone();
    sorted_desc.sort_by(|left, right| right.cmp(left));
    assert_eq!(listing_keys, sorted_desc, "desc by (updated_at, id)");
    listed.sort();
    if expected.len() <= 20 {
        assert_eq!(listed, expected);
    } else {
        assert!(listed.iter().all(|id| expected.contains(id)));
    }
    for (rank, listed) in data["sessions"].as_array().unwrap().iter().enumerate() {
        assert_eq!(listed["rank"], rank + 1);
        assert_eq!(listed["open"]["session_id"], listed["id"]);
        assert_eq!(listed["session"]["id"], listed["id"]);
        assert!(
            listed["session"]["title"]
                .as_str()
                .is_some_and(|title| !title.is_empty())
        );
        for forbidden in ["snippet", "text", "payload", "turns", "events"] {
            assert!(
                listed["session"].get(forbidden).is_none(),
                "no {forbidden} in list_sessions"
            );
        }
    }
    assert_eq!(data["truncated"], expected.len() > 20);
    assert_eq!(data["next_cursor"].is_string(), expected.len() > 20);
}

#[tokio::test]
async fn the_window_is_inclusive_at_start_and_exclusive_at_end() {
    let client = EskerClient::fixtures().await;
    let sessions = session_times();
    let session = sessions
        .iter()
        .find(|session| session.updated_at > session.started_at)
        .expect("a session that lasts");
    let listed_in = |data: &Value| strings_at(&data["sessions"], "/id").contains(&session.id);
    let up_to_start = client
        .list(with(
            window(&rfc3339(session.updated_at), EVERYTHING_END),
            json!({"limit": 50}),
        ))
        .await;
    assert!(listed_in(&up_to_start), "start == updated_at is inside");
    let after_update = session.updated_at + chrono::TimeDelta::milliseconds(1);
    let too_late = client
        .list(with(
            window(&rfc3339(after_update), EVERYTHING_END),
            json!({"limit": 50}),
        ))
        .await;
    assert!(!listed_in(&too_late), "start after updated_at is outside");
    let ends_at_start = client
        .list(with(
            window(EVERYTHING_START, &rfc3339(session.started_at)),
            json!({"limit": 50}),
        ))
        .await;
    assert!(!listed_in(&ends_at_start), "end == started_at is outside");
    let just_after_start = session.started_at + chrono::TimeDelta::milliseconds(1);
    let overlapping = client
        .list(with(
            window(EVERYTHING_START, &rfc3339(just_after_start)),
            json!({"limit": 50}),
        ))
        .await;
    assert!(listed_in(&overlapping), "end after started_at is inside");
}

#[tokio::test]
async fn limit_caps_the_page() {
    let client = EskerClient::fixtures().await;
    let total = session_times().len();
    assert!(total > 2, "fixtures hold several sessions");
    let data = client
        .list(with(
            window(EVERYTHING_START, EVERYTHING_END),
            json!({"limit": 2}),
        ))
        .await;
    assert_eq!(data["result_count"], 2);
    assert_eq!(data["limit"], 2);
    assert_eq!(data["truncated"], true);
    assert!(data["next_cursor"].is_string());
}

#[tokio::test]
async fn cursors_walk_every_session_once_in_order() {
    let client = EskerClient::fixtures().await;
    for sort in ["desc", "asc"] {
        let arguments = with(
            window(EVERYTHING_START, EVERYTHING_END),
            json!({"sort": sort, "limit": 50}),
        );
        let full = keys(&client.list(arguments.clone()).await);
        let mut paged = Vec::new();
        let mut cursor = Value::Null;
        let mut ranks = Vec::new();
        loop {
            let page = client
                .list(with(
                    arguments.clone(),
                    json!({"limit": 3, "cursor": cursor}),
                ))
                .await;
            paged.extend(keys(&page));
            ranks.extend(
                page["sessions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|listed| listed["rank"].as_u64().unwrap()),
            );
            cursor = page["next_cursor"].clone();
            assert_eq!(page["truncated"], cursor.is_string());
            if cursor.is_null() {
                break;
            }
        }
        assert_eq!(paged, full, "{sort}: pages concatenate to the full listing");
        assert_eq!(
            ranks,
            (1..=full.len() as u64).collect::<Vec<_>>(),
            "ranks continue across pages"
        );
    }
}

#[tokio::test]
async fn sort_asc_lists_oldest_first() {
    let client = EskerClient::fixtures().await;
    let everything = window(EVERYTHING_START, EVERYTHING_END);
    let ascending = keys(
        &client
            .list(with(
                everything.clone(),
                json!({"sort": "asc", "limit": 50}),
            ))
            .await,
    );
    let mut descending = keys(
        &client
            .list(with(everything, json!({"sort": "desc", "limit": 50})))
            .await,
    );
    let mut sorted = ascending.clone();
    sorted.sort();
    assert_eq!(ascending, sorted);
    descending.reverse();
    assert_eq!(ascending, descending);
}

#[tokio::test]
async fn mode_filters_sessions() {
    let client = EskerClient::fixtures().await;
    let modes = fixture_rows("SELECT mode, count(*) AS n FROM sessions GROUP BY mode");
    for mode in ["web_search", "mcp_internal", "tool_calling", "chat"] {
        let expected = modes
            .iter()
            .find(|row| row["mode"] == mode)
            .map_or(0, |row| row["n"].as_u64().unwrap());
        let envelope = client
            .success(
                "list_sessions",
                with(
                    window(EVERYTHING_START, EVERYTHING_END),
                    json!({"mode": mode, "limit": 50}),
                ),
            )
            .await;
        let data = &envelope["data"];
        assert_eq!(data["result_count"], expected, "{mode}");
        assert!(
            strings_at(&data["sessions"], "/session/mode")
                .iter()
                .all(|listed| listed == mode)
        );
        assert_eq!(envelope["request"]["mode"], mode);
        assert_eq!(
            envelope["performance"]["sla_target_ms"], 1200,
            "broad single-mode window"
        );
    }
}

#[tokio::test]
async fn sla_targets_follow_the_window() {
    let client = EskerClient::fixtures().await;
    let typical = client
        .success(
            "list_sessions",
            window("2026-03-14T00:00:00Z", "2026-03-15T00:00:00Z"),
        )
        .await;
    assert_eq!(typical["performance"]["sla_target_ms"], 300);
    let broad = client
        .success("list_sessions", window(EVERYTHING_START, EVERYTHING_END))
        .await;
    assert_eq!(broad["performance"]["sla_target_ms"], 1000);
}

#[tokio::test]
async fn rejected_inputs_are_invalid_requests() {
    let client = EskerClient::fixtures().await;
    let everything = window(EVERYTHING_START, EVERYTHING_END);
    let first_page = client
        .list(with(everything.clone(), json!({"limit": 1})))
        .await;
    let cursor = first_page["next_cursor"].as_str().unwrap().to_owned();
    let cases = [
        json!({"end_datetime": EVERYTHING_END}),
        json!({"start_datetime": EVERYTHING_START}),
        json!({}),
        Value::Null,
        window("2026-03-14T09:00:00", EVERYTHING_END),
        window(EVERYTHING_START, "2026-03-14"),
        window("yesterday", EVERYTHING_END),
        window("2026-03-14T09:00:00Z", "2026-03-14T09:00:00Z"),
        window("2026-03-14T09:00:00Z", "2026-03-14T05:00:00-04:00"),
        window("2026-03-14T09:00:00Z", "2026-03-14T08:00:00Z"),
        with(everything.clone(), json!({"query": "x"})),
        with(everything.clone(), json!({"limit": 0})),
        with(everything.clone(), json!({"limit": 51})),
        with(everything.clone(), json!({"limit": "5"})),
        with(everything.clone(), json!({"mode": "browsing"})),
        with(everything.clone(), json!({"mode": "unknown"})),
        with(everything.clone(), json!({"sort": "newest"})),
        with(everything.clone(), json!({"sort": 1})),
        with(everything.clone(), json!({"cursor": "garbage"})),
        with(everything.clone(), json!({"cursor": cursor, "sort": "asc"})),
        with(
            everything.clone(),
            json!({"cursor": cursor, "mode": "chat"}),
        ),
        with(
            window("2001-01-01T00:00:00Z", EVERYTHING_END),
            json!({"cursor": cursor}),
        ),
    ];
    for arguments in cases {
        let code = client.error_code("list_sessions", arguments.clone()).await;
        assert_eq!(code, "invalid_request", "{arguments}");
    }
    let same_filter = with(everything, json!({"cursor": cursor, "limit": 2}));
    assert!(
        client.list(same_filter).await["result_count"]
            .as_u64()
            .unwrap()
            >= 1
    );
}

#[tokio::test]
async fn timezone_and_field_errors_name_the_field() {
    let client = EskerClient::fixtures().await;
    let naive = client
        .failure(
            "list_sessions",
            window("2026-03-14T09:00:00", EVERYTHING_END),
        )
        .await;
    assert_eq!(naive["error"]["details"]["field"], "start_datetime");
    assert!(
        naive["error"]["message"]
            .as_str()
            .unwrap()
            .contains("timezone")
    );
    let unknown = client
        .failure(
            "list_sessions",
            with(window(EVERYTHING_START, EVERYTHING_END), json!({"page": 2})),
        )
        .await;
    assert_eq!(unknown["error"]["details"]["field"], "page");
    assert_eq!(unknown["performance"]["sla_target_ms"], 300);
}

/// Found by the fuzz (`window:absurd_years`): `0001-01-01T00:00:00Z` is a valid RFC 3339
/// start; instants outside the nanosecond range once all became `i64::MAX`, so a window
/// opening before 1677 listed nothing.
#[tokio::test]
async fn a_window_opening_in_year_one_lists_every_session() {
    let client = EskerClient::fixtures().await;
    let everything = client
        .list(with(
            window(EVERYTHING_START, EVERYTHING_END),
            json!({"limit": 50}),
        ))
        .await;
    for start in ["0001-01-01T00:00:00Z", "1600-01-01T00:00:00Z"] {
        let absurd = client
            .list(with(
                window(start, "9999-12-31T23:59:59Z"),
                json!({"limit": 50}),
            ))
            .await;
        assert_eq!(keys(&absurd), keys(&everything), "window from {start}");
    }
}
