//! What the fuzz needs to know about the fixture store: every id (ground truth for
//! `not_found`), words that match events, and live `list_sessions` cursors.

use std::collections::HashSet;

use serde_json::json;

use super::super::client::{EskerClient, fixture_strings};

/// A window covering every fixture session.
pub const EVERYTHING_START: &str = "2000-01-01T00:00:00Z";
pub const EVERYTHING_END: &str = "2100-01-01T00:00:00Z";

/// A cursor returned by `list_sessions` for the everything window with `sort`, no mode.
pub struct LiveCursor {
    pub sort: &'static str,
    pub cursor: String,
}

pub struct Known {
    pub sessions: Vec<String>,
    pub turns: Vec<String>,
    pub events: Vec<String>,
    ids: HashSet<String>,
    pub words: Vec<String>,
    pub cursors: Vec<LiveCursor>,
}

impl Known {
    pub async fn load(client: &EskerClient) -> Known {
        let sessions = fixture_strings("SELECT session_id FROM sessions ORDER BY session_id");
        let turns = fixture_strings("SELECT turn_id FROM turns ORDER BY turn_id");
        let events = fixture_strings("SELECT event_id FROM events ORDER BY event_id");
        let ids = sessions
            .iter()
            .chain(&turns)
            .chain(&events)
            .cloned()
            .collect();
        let mut cursors = Vec::new();
        for sort in ["desc", "asc"] {
            cursors.push(LiveCursor {
                sort,
                cursor: first_page_cursor(client, sort).await,
            });
        }
        Known {
            sessions,
            turns,
            events,
            ids,
            words: query_words(),
            cursors,
        }
    }

    pub fn exists(&self, id: &str) -> bool {
        self.ids.contains(id)
    }
}

async fn first_page_cursor(client: &EskerClient, sort: &str) -> String {
    let data = client
        .list(json!({
            "start_datetime": EVERYTHING_START,
            "end_datetime": EVERYTHING_END,
            "limit": 1,
            "sort": sort,
        }))
        .await;
    data["next_cursor"]
        .as_str()
        .expect("the fixtures hold more than one session")
        .to_owned()
}

/// Alphabetic words of at least five letters from user prompts.
fn query_words() -> Vec<String> {
    let texts = fixture_strings(
        "SELECT text FROM events WHERE type = 'user_input' AND text IS NOT NULL \
         ORDER BY event_id LIMIT 40",
    );
    let mut words: Vec<String> = texts
        .iter()
        .flat_map(|text| text.split(|character: char| !character.is_ascii_alphabetic()))
        .filter(|word| word.len() >= 5)
        .map(str::to_lowercase)
        .collect();
    words.sort();
    words.dedup();
    assert!(words.len() > 10, "the fixtures have words to search for");
    words
}
