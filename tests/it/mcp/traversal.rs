//! The traversal contract: every path the spec lists, walked with ids the server returned,
//! plus a crawl that opens every session, turn and event reachable from list_sessions and
//! checks every parent and neighbour reference against the tables.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::client::{EskerClient, fixture_rows, fixture_string};

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("expected an id, got {value}"))
}

#[tokio::test]
async fn search_hits_open_as_event_turn_and_session() {
    let client = EskerClient::fixtures().await;
    let data = client
        .search(json!({"query": "parquet", "n_hits": 5}))
        .await;
    for hit in data["results"].as_array().unwrap() {
        let event = client.open(text(&hit["open"]["event_id"])).await;
        assert_eq!(event["kind"], "event");
        assert_eq!(event["event"]["id"], hit["open"]["event_id"]);
        let turn = client.open(text(&hit["open"]["turn_id"])).await;
        assert_eq!(turn["kind"], "turn");
        assert_eq!(turn["turn"]["ordinal"], hit["turn"]["ordinal"]);
        let session = client.open(text(&hit["open"]["session_id"])).await;
        assert_eq!(session["kind"], "session");
        assert_eq!(session["session"]["title"], hit["session"]["title"]);
    }
}

#[tokio::test]
async fn listed_sessions_open() {
    let client = EskerClient::fixtures().await;
    let data = client
        .list(json!({"start_datetime": "2000-01-01T00:00:00Z", "end_datetime": "2100-01-01T00:00:00Z", "limit": 50}))
        .await;
    for listed in data["sessions"].as_array().unwrap() {
        let session = client.open(text(&listed["open"]["session_id"])).await;
        assert_eq!(session["session"]["id"], listed["id"]);
        assert_eq!(
            session["session"]["turn_count"],
            listed["session"]["turn_count"]
        );
    }
}

#[tokio::test]
async fn an_event_leads_to_its_parents_and_neighbours() {
    let client = EskerClient::fixtures().await;
    let rows = fixture_rows(
        "SELECT event_id, turn_id, session_id, ordinal, turn_ordinal FROM events \
         WHERE ordinal > 1 AND turn_ordinal > 1 ORDER BY event_id LIMIT 1",
    );
    let event_id = rows[0]["event_id"].as_str().unwrap();
    let event = client.open(event_id).await;
    let traversal = &event["traversal"];
    let parent_turn = client.open(text(&traversal["turn_id"])).await;
    assert!(
        parent_turn["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|summary| summary["id"] == event_id)
    );
    let parent_session = client.open(text(&traversal["session_id"])).await;
    assert!(
        parent_session["turns"]
            .as_array()
            .unwrap()
            .iter()
            .any(|turn| turn["id"] == traversal["turn_id"])
    );
    let previous = client.open(text(&traversal["previous_event_id"])).await;
    assert_eq!(
        previous["event"]["ordinal"],
        rows[0]["ordinal"].as_u64().unwrap() - 1
    );
    assert_eq!(previous["traversal"]["next_event_id"], event_id);
    let previous_turn = client.open(text(&traversal["previous_turn_id"])).await;
    assert_eq!(
        previous_turn["turn"]["ordinal"],
        rows[0]["turn_ordinal"].as_u64().unwrap() - 1
    );
    if let Some(next_event_id) = traversal["next_event_id"].as_str() {
        let next = client.open(next_event_id).await;
        assert_eq!(next["traversal"]["previous_event_id"], event_id);
    }
    if let Some(next_turn_id) = traversal["next_turn_id"].as_str() {
        let next_turn = client.open(next_turn_id).await;
        assert_eq!(
            next_turn["traversal"]["previous_turn_id"],
            traversal["turn_id"]
        );
    }
}

#[tokio::test]
async fn a_turn_leads_to_its_session_neighbours_and_ends() {
    let client = EskerClient::fixtures().await;
    let turn_id = fixture_string(
        "SELECT t.turn_id FROM turns t JOIN sessions s ON s.session_id = t.session_id \
         WHERE t.ordinal > 1 AND t.ordinal < s.turn_count ORDER BY t.turn_id LIMIT 1",
    );
    let turn = client.open(&turn_id).await;
    let traversal = &turn["traversal"];
    let session = client.open(text(&traversal["session_id"])).await;
    assert!(
        session["turns"]
            .as_array()
            .unwrap()
            .iter()
            .any(|summary| summary["id"] == turn_id.as_str())
    );
    let previous = client.open(text(&traversal["previous_turn_id"])).await;
    assert_eq!(previous["traversal"]["next_turn_id"], turn_id.as_str());
    let next = client.open(text(&traversal["next_turn_id"])).await;
    assert_eq!(next["traversal"]["previous_turn_id"], turn_id.as_str());
    let first = client.open(text(&traversal["first_event_id"])).await;
    assert_eq!(first["event"]["ordinal"], 1);
    assert_eq!(first["traversal"]["previous_event_id"], Value::Null);
    let last = client.open(text(&traversal["last_event_id"])).await;
    assert_eq!(last["event"]["ordinal"], turn["turn"]["event_count"]);
    assert_eq!(last["traversal"]["next_event_id"], Value::Null);
}

/// Expected neighbours from the tables: id -> (previous id, next id).
fn neighbours_from_tables(sql: &str) -> HashMap<String, (Value, Value)> {
    let rows = fixture_rows(sql);
    let mut map = HashMap::new();
    for (index, row) in rows.iter().enumerate() {
        let same_group = |other: &serde_json::Map<String, Value>| other["grp"] == row["grp"];
        let previous = index
            .checked_sub(1)
            .map(|i| &rows[i])
            .filter(|other| same_group(other))
            .map_or(Value::Null, |other| other["id"].clone());
        let next = rows
            .get(index + 1)
            .filter(|other| same_group(other))
            .map_or(Value::Null, |other| other["id"].clone());
        map.insert(row["id"].as_str().unwrap().to_owned(), (previous, next));
    }
    map
}

#[tokio::test]
async fn every_reachable_id_opens_with_consistent_references() {
    let client = EskerClient::fixtures().await;
    let turn_neighbours = neighbours_from_tables(
        "SELECT turn_id AS id, session_id AS grp FROM turns ORDER BY session_id, ordinal",
    );
    let event_neighbours = neighbours_from_tables(
        "SELECT event_id AS id, turn_id AS grp FROM events ORDER BY turn_id, ordinal",
    );
    let listed = client
        .list(json!({"start_datetime": "2000-01-01T00:00:00Z", "end_datetime": "2100-01-01T00:00:00Z", "limit": 50}))
        .await;
    let mut opened_events = 0;
    for listed_session in listed["sessions"].as_array().unwrap() {
        let session_id = text(&listed_session["open"]["session_id"]);
        let session = client.open(session_id).await;
        for turn_summary in session["turns"].as_array().unwrap() {
            let turn_id = text(&turn_summary["id"]);
            let turn = client.open(turn_id).await;
            assert_eq!(turn["turn"]["session_id"], session_id);
            assert_eq!(turn["traversal"]["session_id"], session_id);
            let (previous_turn, next_turn) = &turn_neighbours[turn_id];
            assert_eq!(
                &turn["traversal"]["previous_turn_id"], previous_turn,
                "{turn_id}"
            );
            assert_eq!(&turn["traversal"]["next_turn_id"], next_turn, "{turn_id}");
            for event_summary in turn["events"].as_array().unwrap() {
                let event_id = text(&event_summary["id"]);
                let event = client.open(event_id).await;
                opened_events += 1;
                let traversal = &event["traversal"];
                assert_eq!(traversal["turn_id"], turn_id);
                assert_eq!(traversal["session_id"], session_id);
                assert_eq!(event["event"]["turn_id"], turn_id);
                assert_eq!(event["turn"]["ordinal"], turn["turn"]["ordinal"]);
                assert_eq!(&traversal["previous_turn_id"], previous_turn);
                assert_eq!(&traversal["next_turn_id"], next_turn);
                let (previous_event, next_event) = &event_neighbours[event_id];
                assert_eq!(
                    &traversal["previous_event_id"], previous_event,
                    "{event_id}"
                );
                assert_eq!(&traversal["next_event_id"], next_event, "{event_id}");
                assert_eq!(event["event"]["type"], event_summary["type"]);
            }
        }
    }
    assert_eq!(
        opened_events,
        event_neighbours.len(),
        "every event is reachable"
    );
}
