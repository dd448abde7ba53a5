//! The in-memory directory of one store generation: the few session and turn columns that
//! search hits, scope checks and open(event) need, loaded once per generation so that those
//! answers take no SQL.

use std::collections::HashMap;
use std::sync::Arc;

use crate::mcp::rows::{Row, RowError, Rows};

/// What a hit or an opened event shows of its session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionBrief {
    pub title: String,
    pub source: String,
    /// UTC nanoseconds.
    pub started_at: Option<i64>,
    pub updated_at: Option<i64>,
    pub completed: bool,
}

/// What a hit or an opened event shows of its turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnBrief {
    pub session_id: Arc<str>,
    pub ordinal: i64,
    pub completed: bool,
    pub event_count: i64,
}

/// Sessions and turns by id, and each session's turns in ordinal order.
#[derive(Debug, Default)]
pub struct Directory {
    sessions: HashMap<Arc<str>, SessionBrief>,
    turns: HashMap<Arc<str>, TurnBrief>,
    turn_order: HashMap<Arc<str>, Vec<(i64, Arc<str>)>>,
}

impl Directory {
    /// Builds the directory from the rows of `queries/directory_sessions.sql` and
    /// `queries/directory_turns.sql`.
    pub fn from_rows(sessions: &Rows, turns: &Rows) -> Result<Directory, RowError> {
        let mut directory = Directory::default();
        for row in sessions.iter() {
            let session_id: Arc<str> = row.string("session_id")?.into();
            directory.sessions.insert(session_id, session_brief(&row)?);
        }
        for row in turns.iter() {
            directory.add_turn(&row)?;
        }
        for order in directory.turn_order.values_mut() {
            order.sort_unstable();
        }
        Ok(directory)
    }

    fn add_turn(&mut self, row: &Row<'_>) -> Result<(), RowError> {
        let turn_id: Arc<str> = row.string("turn_id")?.into();
        let session_id = self.session_key(row.string("session_id")?);
        let ordinal = row.i64("ordinal")?;
        self.turn_order
            .entry(Arc::clone(&session_id))
            .or_default()
            .push((ordinal, Arc::clone(&turn_id)));
        self.turns.insert(
            turn_id,
            TurnBrief {
                session_id,
                ordinal,
                completed: row.bool("completed")?,
                event_count: row.i64("event_count")?,
            },
        );
        Ok(())
    }

    /// The shared key of a session id (one allocation per session, not per turn).
    fn session_key(&self, session_id: &str) -> Arc<str> {
        self.sessions
            .get_key_value(session_id)
            .map(|(key, _)| Arc::clone(key))
            .unwrap_or_else(|| session_id.into())
    }

    pub fn session(&self, session_id: &str) -> Option<&SessionBrief> {
        self.sessions.get(session_id)
    }

    pub fn turn(&self, turn_id: &str) -> Option<&TurnBrief> {
        self.turns.get(turn_id)
    }

    /// The ids of the turns at `ordinal - 1` and `ordinal + 1` of the session.
    pub fn adjacent_turns(&self, session_id: &str, ordinal: i64) -> (Option<&str>, Option<&str>) {
        let Some(order) = self.turn_order.get(session_id) else {
            return (None, None);
        };
        let at = |wanted: i64| {
            order
                .binary_search_by_key(&wanted, |(ordinal, _)| *ordinal)
                .ok()
                .map(|index| order[index].1.as_ref())
        };
        (at(ordinal - 1), at(ordinal + 1))
    }

    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    pub fn turn_count(&self) -> usize {
        self.turns.len()
    }
}

fn session_brief(row: &Row<'_>) -> Result<SessionBrief, RowError> {
    Ok(SessionBrief {
        title: row.string("title")?.to_owned(),
        source: row.string("source")?.to_owned(),
        started_at: row.opt_timestamp_nanos("started_at")?,
        updated_at: row.opt_timestamp_nanos("updated_at")?,
        completed: row.bool("completed")?,
    })
}
