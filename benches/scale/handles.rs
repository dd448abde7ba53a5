//! Ids to drive the tools with, picked from the store by SQL: sessions of 100, ≤250 and 1000
//! turns, the widest turns (≤100 and ~500 events), small and 1 MiB events, the first sessions of
//! 10-session chains, touched file paths, plus document counts.

use std::path::Path;

use datafusion::prelude::SessionContext;
use esker::query::context_at;

/// Ids of every shape the SLA rows need.
#[derive(Debug, Default, Clone)]
pub struct Handles {
    pub small_events: Vec<String>,
    pub large_events: Vec<String>,
    pub turns_100: Vec<String>,
    pub turns_500: Vec<String>,
    pub sessions_100: Vec<String>,
    pub sessions_250: Vec<String>,
    pub sessions_1000: Vec<String>,
    /// `(turn_id, session_id)` of regular turns, for scoped searches.
    pub regular_turns: Vec<(String, String)>,
    /// The first session of each 10-session chain (the generator's shared-slug chains).
    pub chains_10: Vec<String>,
    /// Project-relative paths of touched files: the most touched ones and rarely touched ones.
    pub touched_paths: Vec<String>,
}

/// Counts of the store at one stage.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub events: u64,
    pub searchable: u64,
    pub default_types: u64,
    pub sessions: u64,
}

pub async fn counts(root: &Path) -> anyhow::Result<Counts> {
    let context = context_at(root).await?;
    let events = strings(&context, "SELECT CAST(count(*) AS VARCHAR), CAST(sum(CASE WHEN type <> 'unknown' THEN 1 ELSE 0 END) AS VARCHAR), CAST(sum(CASE WHEN type IN ('user_input','assistant_response','tool_response') THEN 1 ELSE 0 END) AS VARCHAR) FROM events").await?;
    let sessions = strings(&context, "SELECT CAST(count(*) AS VARCHAR) FROM sessions").await?;
    let number = |rows: &[Vec<String>], column: usize| -> u64 {
        rows.first()
            .and_then(|row| row.get(column))
            .and_then(|value| value.parse().ok())
            .unwrap_or_default()
    };
    Ok(Counts {
        events: number(&events, 0),
        searchable: number(&events, 1),
        default_types: number(&events, 2),
        sessions: number(&sessions, 0),
    })
}

pub async fn pick(root: &Path) -> anyhow::Result<Handles> {
    let context = context_at(root).await?;
    let column =
        |rows: Vec<Vec<String>>| rows.into_iter().map(|mut row| row.swap_remove(0)).collect();
    let sessions_with = |low: u32, high: u32| {
        format!(
            "SELECT session_id FROM sessions WHERE turn_count BETWEEN {low} AND {high} ORDER BY turn_count DESC, session_id LIMIT 20"
        )
    };
    Ok(Handles {
        small_events: column(strings(&context, "SELECT event_id FROM events WHERE type IN ('tool_response','assistant_response','user_input') AND length(text) <= 65536 ORDER BY event_id LIMIT 200").await?),
        large_events: column(strings(&context, "SELECT event_id FROM events WHERE length(text) >= 1000000 ORDER BY event_id LIMIT 20").await?),
        turns_100: column(strings(&context, "SELECT turn_id FROM turns WHERE event_count <= 100 ORDER BY event_count DESC, turn_id LIMIT 20").await?),
        turns_500: column(strings(&context, "SELECT turn_id FROM turns WHERE event_count <= 500 ORDER BY event_count DESC, turn_id LIMIT 10").await?),
        sessions_100: column(strings(&context, &sessions_with(90, 110)).await?),
        sessions_250: column(strings(&context, &sessions_with(111, 250)).await?),
        sessions_1000: column(strings(&context, &sessions_with(900, 1100)).await?),
        regular_turns: strings(&context, "SELECT turn_id, session_id FROM turns WHERE event_count BETWEEN 3 AND 40 ORDER BY turn_id LIMIT 200")
            .await?
            .into_iter()
            .map(|row| (row[0].clone(), row[1].clone()))
            .collect(),
        chains_10: column(strings(&context, "SELECT session_id FROM sessions WHERE chain_length = 10 AND chain_number = 1 ORDER BY session_id LIMIT 20").await?),
        touched_paths: touched_paths(&context).await?,
    })
}

/// Tails under a known root, alternating between the most and the least touched.
async fn touched_paths(context: &SessionContext) -> anyhow::Result<Vec<String>> {
    let by_count = |order: &str| {
        format!(
            "SELECT tail FROM (SELECT tail, count(*) AS touches FROM file_touches WHERE root IS NOT NULL GROUP BY tail) ORDER BY touches {order}, tail LIMIT 25"
        )
    };
    let most = strings(context, &by_count("DESC")).await?;
    let least = strings(context, &by_count("ASC")).await?;
    Ok(most
        .into_iter()
        .zip(least)
        .flat_map(|(mut most, mut least)| [most.swap_remove(0), least.swap_remove(0)])
        .collect())
}

#[path = "../common/sql_rows.rs"]
mod sql_rows;
pub use sql_rows::strings;
