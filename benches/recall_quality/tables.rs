//! What the bench reads from the store's tables by SQL (never through recall's own code): the
//! events holding each planted fact, and the working directory of every event's session.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use datafusion::prelude::SessionContext;
use esker::query::context_at;
use esker::store::Store;

use crate::spec::Spec;

/// The event types `search_sessions` (and so recall) searches by default.
pub const SEARCHED_TYPES: &str = "'user_input', 'assistant_response', 'tool_response'";

/// A SQL context over the store's current generation.
pub async fn context(data_dir: &Path) -> anyhow::Result<SessionContext> {
    let root = Store::open_existing(data_dir)?.current()?.root;
    Ok(context_at(&root).await?)
}

#[path = "../common/sql_rows.rs"]
mod sql_rows;
pub use sql_rows::strings;

fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The planted facts as the store holds them.
#[derive(Debug, Default)]
pub struct Planted {
    /// Fact id → the ids of the events whose text holds its marker.
    pub events: HashMap<String, HashSet<String>>,
    /// Fact id → its session id.
    pub sessions: HashMap<String, String>,
    /// Every fact's events (an answer to some planted question).
    pub any_fact: HashSet<String>,
}

impl Planted {
    /// Finds each fact's events by its marker, and checks the corpus: the marker is in at
    /// least one searched event, and only in the events of the one session logged in the
    /// fact's `file`.
    pub async fn find(context: &SessionContext, spec: &Spec) -> anyhow::Result<Planted> {
        let mut planted = Planted::default();
        for fact in &spec.fact {
            let sql = format!(
                "SELECT event_id, session_id, type, source_path FROM events \
                 WHERE strpos(text, {}) > 0",
                quoted(&fact.marker)
            );
            let rows = strings(context, &sql).await?;
            anyhow::ensure!(
                rows.iter()
                    .any(|row| SEARCHED_TYPES.contains(&format!("'{}'", row[2]))),
                "{}: no searched event holds the marker {:?} (redacted, or not parsed?)",
                fact.id,
                fact.marker
            );
            let sessions: HashSet<&str> = rows.iter().map(|row| row[1].as_str()).collect();
            anyhow::ensure!(
                sessions.len() == 1,
                "{}: the marker {:?} is in {} sessions",
                fact.id,
                fact.marker,
                sessions.len()
            );
            for row in &rows {
                anyhow::ensure!(
                    Path::new(&row[3]).ends_with(&fact.file),
                    "{}: the marker {:?} is in {}, not in {}",
                    fact.id,
                    fact.marker,
                    row[3],
                    fact.file
                );
            }
            let events: HashSet<String> = rows.iter().map(|row| row[0].clone()).collect();
            planted.any_fact.extend(events.iter().cloned());
            planted.sessions.insert(fact.id.clone(), rows[0][1].clone());
            planted.events.insert(fact.id.clone(), events);
        }
        Ok(planted)
    }
}

/// Event id → (session id, the session's working directory).
pub async fn event_sessions(
    context: &SessionContext,
) -> anyhow::Result<HashMap<String, (String, String)>> {
    let rows = strings(
        context,
        "SELECT e.event_id, e.session_id, s.cwd FROM events e \
         JOIN sessions s ON e.session_id = s.session_id",
    )
    .await?;
    Ok(rows
        .into_iter()
        .map(|mut row| {
            let cwd = row.pop().unwrap_or_default();
            let session = row.pop().unwrap_or_default();
            let event = row.pop().unwrap_or_default();
            (event, (session, cwd))
        })
        .collect())
}

/// Whether a session run in `session_cwd` belongs to the project of `cwd` (the directory
/// itself or below it: the prompts' directories are not on this machine, so recall scopes
/// each to itself).
pub fn in_project(cwd: &str, session_cwd: &str) -> bool {
    let cwd = cwd.trim_end_matches('/');
    session_cwd == cwd || session_cwd.starts_with(&format!("{cwd}/"))
}

/// Event counts of a store: all events and those of the searched types.
pub async fn counts(context: &SessionContext) -> anyhow::Result<(u64, u64)> {
    let rows = strings(
        context,
        &format!(
            "SELECT count(*), sum(CASE WHEN type IN ({SEARCHED_TYPES}) THEN 1 ELSE 0 END) \
             FROM events"
        ),
    )
    .await?;
    let number = |index: usize| {
        rows.first()
            .and_then(|row| row.get(index))
            .and_then(|text| text.parse().ok())
            .unwrap_or(0)
    };
    Ok((number(0), number(1)))
}
