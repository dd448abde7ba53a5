//! The in-memory directory of one store generation: the few session and turn columns that
//! search hits, scope checks and open(event) need, loaded once per generation so that those
//! answers take no SQL.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Int64Array, StringArray, TimestampNanosecondArray,
};
use datafusion::arrow::record_batch::RecordBatch;

use crate::mcp::chain::ChainBrief;
use crate::mcp::rows::{RowError, normalize_column};
use crate::mcp::usage::USAGE_COLUMNS;
use crate::model::TokenUsage;

/// What a hit, an opened event or a list_sessions page shows of its session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionBrief {
    pub title: String,
    pub source: String,
    /// UTC nanoseconds.
    pub started_at: Option<i64>,
    pub updated_at: Option<i64>,
    pub completed: bool,
    pub turn_count: i64,
    pub event_count: i64,
    pub mode: String,
    pub session_slug: Option<String>,
    pub session_summary: Option<String>,
    pub usage: Option<TokenUsage>,
    pub chain: Option<ChainBrief>,
    /// A sub-agent's session (it may carry its parent's slug, but is no member of its chain).
    pub sub_agent: bool,
}

/// A list_sessions request as the directory evaluates it (the semantics of
/// `queries/list_sessions_{desc,asc}.sql`).
#[derive(Debug, Clone)]
pub struct SessionWindow<'a> {
    /// Sessions with `updated_at >= start` and `started_at < end` (UTC nanoseconds).
    pub start: i64,
    pub end: i64,
    pub mode: Option<&'a str>,
    /// Only sessions after this `(updated_at, session_id)` position in the sort order.
    pub after: Option<(i64, &'a str)>,
    pub newest_first: bool,
    pub limit: usize,
    /// Only sessions of this source (`None`: any).
    pub source: Option<&'a str>,
}

impl SessionWindow<'_> {
    /// Whether `brief` is active in the window and of its mode.
    fn admits(&self, brief: &SessionBrief) -> bool {
        let in_window = match (brief.updated_at, brief.started_at) {
            (Some(updated_at), Some(started_at)) => {
                updated_at >= self.start && started_at < self.end
            }
            _ => false,
        };
        in_window
            && self.mode.is_none_or(|mode| brief.mode == mode)
            && self.source.is_none_or(|source| brief.source == source)
    }
}

/// What a hit or an opened event shows of its turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnBrief {
    pub session_id: Arc<str>,
    pub ordinal: i64,
    pub completed: bool,
    pub event_count: i64,
}

/// Maps keyed by ids with a fast non-cryptographic hash (ids are not attacker-chosen keys
/// of a long-lived table here: they come from our own store).
type IdMap<V> = HashMap<Arc<str>, V, foldhash::fast::RandomState>;

/// Sessions and turns by id, and each session's turns in ordinal order.
#[derive(Debug, Default)]
pub struct Directory {
    sessions: IdMap<SessionBrief>,
    turns: IdMap<TurnBrief>,
    turn_order: IdMap<Vec<(i64, Arc<str>)>>,
}

impl Directory {
    /// Builds the directory from the batches of `queries/directory_sessions.sql` and
    /// `queries/directory_turns.sql`, reading the Arrow columns directly (a million-document
    /// store has ~10^5 sessions and a few 10^5 turns: this takes tens of milliseconds).
    pub fn from_batches(
        sessions: &[RecordBatch],
        turns: &[RecordBatch],
    ) -> Result<Directory, RowError> {
        let session_rows: usize = sessions.iter().map(RecordBatch::num_rows).sum();
        let turn_rows: usize = turns.iter().map(RecordBatch::num_rows).sum();
        let mut directory = Directory {
            sessions: IdMap::with_capacity_and_hasher(session_rows, Default::default()),
            turns: IdMap::with_capacity_and_hasher(turn_rows, Default::default()),
            turn_order: IdMap::with_capacity_and_hasher(session_rows, Default::default()),
        };
        for batch in sessions {
            directory.add_sessions(batch)?;
        }
        for batch in turns {
            directory.add_turns(batch)?;
        }
        for order in directory.turn_order.values_mut() {
            order.sort_unstable();
        }
        Ok(directory)
    }

    fn add_sessions(&mut self, batch: &RecordBatch) -> Result<(), RowError> {
        let session_ids = strings(batch, "session_id")?;
        let titles = strings(batch, "title")?;
        let sources = strings(batch, "source")?;
        let started = timestamps(batch, "started_at")?;
        let updated = timestamps(batch, "updated_at")?;
        let completed = booleans(batch, "completed")?;
        let turn_counts = integers(batch, "turn_count")?;
        let event_counts = integers(batch, "event_count")?;
        let modes = strings(batch, "mode")?;
        let slugs = optional_strings(batch, "session_slug")?;
        let summaries = optional_strings(batch, "session_summary")?;
        let chain_slugs = optional_strings(batch, "chain_slug")?;
        let chain_numbers = optional_integers(batch, "chain_number")?;
        let chain_lengths = optional_integers(batch, "chain_length")?;
        let parents = optional_strings(batch, "parent_session_id")?;
        let usage_columns = USAGE_COLUMNS
            .iter()
            .map(|column| optional_integers(batch, column))
            .collect::<Result<Vec<_>, _>>()?;
        for row in 0..batch.num_rows() {
            let count = |index: usize| {
                let array: &Int64Array = &usage_columns[index];
                (!array.is_null(row)).then(|| array.value(row))
            };
            let usage = TokenUsage {
                input: count(0),
                cached_input: count(1),
                output: count(2),
                reasoning: count(3),
                total: count(4),
            };
            let nanos =
                |array: &TimestampNanosecondArray| (!array.is_null(row)).then(|| array.value(row));
            let text =
                |array: &StringArray| (!array.is_null(row)).then(|| array.value(row).to_owned());
            self.sessions.insert(
                session_ids.value(row).into(),
                SessionBrief {
                    title: titles.value(row).to_owned(),
                    source: sources.value(row).to_owned(),
                    started_at: nanos(&started),
                    updated_at: nanos(&updated),
                    completed: completed.value(row),
                    turn_count: turn_counts.value(row),
                    event_count: event_counts.value(row),
                    mode: modes.value(row).to_owned(),
                    session_slug: text(&slugs),
                    session_summary: text(&summaries),
                    usage: (usage != TokenUsage::default()).then_some(usage),
                    chain: (!chain_numbers.is_null(row) && !chain_lengths.is_null(row)).then(
                        || ChainBrief {
                            slug: text(&chain_slugs),
                            number: chain_numbers.value(row),
                            length: chain_lengths.value(row),
                        },
                    ),
                    sub_agent: !parents.is_null(row),
                },
            );
        }
        Ok(())
    }

    /// The sessions of a list_sessions page, in page order: at most `limit` of them.
    pub fn list(&self, window: &SessionWindow<'_>) -> Vec<(&str, &SessionBrief)> {
        let mut matches: Vec<(i64, &str, &SessionBrief)> = self
            .sessions
            .iter()
            .filter_map(|(session_id, brief)| {
                let updated_at = brief.updated_at?;
                let position = (updated_at, session_id.as_ref());
                let after = window.after.is_none_or(|cursor| {
                    if window.newest_first {
                        position < cursor
                    } else {
                        position > cursor
                    }
                });
                (window.admits(brief) && after).then_some((updated_at, session_id.as_ref(), brief))
            })
            .collect();
        let order = |left: &(i64, &str, &SessionBrief), right: &(i64, &str, &SessionBrief)| {
            let ascending = (left.0, left.1).cmp(&(right.0, right.1));
            if window.newest_first {
                ascending.reverse()
            } else {
                ascending
            }
        };
        first_in_order(&mut matches, window.limit, order);
        matches.truncate(window.limit);
        matches
            .into_iter()
            .map(|(_, session_id, brief)| (session_id, brief))
            .collect()
    }

    /// The sessions of a list_sessions(slug) page: the members of the chain named `slug` (or
    /// the one session that carries it alone, not a sub-agent) active in the window, in chain
    /// order (started_at, then id), after `window.after` read as (started_at, session id);
    /// `newest_first` does not apply. The semantics of `queries/list_sessions_chain.sql`.
    pub fn list_chain(&self, slug: &str, window: &SessionWindow<'_>) -> Vec<(&str, &SessionBrief)> {
        let mut matches: Vec<(i64, &str, &SessionBrief)> = self
            .sessions
            .iter()
            .filter_map(|(session_id, brief)| {
                let started_at = brief.started_at?;
                let position = (started_at, session_id.as_ref());
                let after = window.after.is_none_or(|cursor| position > cursor);
                (is_named_by_slug(brief, slug) && window.admits(brief) && after).then_some((
                    started_at,
                    session_id.as_ref(),
                    brief,
                ))
            })
            .collect();
        let order = |left: &(i64, &str, &SessionBrief), right: &(i64, &str, &SessionBrief)| {
            (left.0, left.1).cmp(&(right.0, right.1))
        };
        first_in_order(&mut matches, window.limit, order);
        matches.truncate(window.limit);
        matches
            .into_iter()
            .map(|(_, session_id, brief)| (session_id, brief))
            .collect()
    }

    fn add_turns(&mut self, batch: &RecordBatch) -> Result<(), RowError> {
        let turn_ids = strings(batch, "turn_id")?;
        let session_ids = strings(batch, "session_id")?;
        let ordinals = integers(batch, "ordinal")?;
        let completed = booleans(batch, "completed")?;
        let event_counts = integers(batch, "event_count")?;
        for row in 0..batch.num_rows() {
            let turn_id: Arc<str> = turn_ids.value(row).into();
            let session_id = self.session_key(session_ids.value(row));
            let ordinal = ordinals.value(row);
            self.turn_order
                .entry(Arc::clone(&session_id))
                .or_default()
                .push((ordinal, Arc::clone(&turn_id)));
            self.turns.insert(
                turn_id,
                TurnBrief {
                    session_id,
                    ordinal,
                    completed: completed.value(row),
                    event_count: event_counts.value(row),
                },
            );
        }
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

    /// How many events the session has before its turn `turn_ordinal` (turns hold contiguous
    /// runs of the session's events, so an event's `seq` is this plus its ordinal); `None` when
    /// the session or one of those turns is not in the directory.
    pub fn events_before_turn(&self, session_id: &str, turn_ordinal: i64) -> Option<i64> {
        let order = self.turn_order.get(session_id)?;
        order
            .iter()
            .take_while(|(ordinal, _)| *ordinal < turn_ordinal)
            .map(|(_, turn_id)| self.turns.get(turn_id).map(|turn| turn.event_count))
            .sum()
    }

    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    pub fn turn_count(&self) -> usize {
        self.turns.len()
    }
}

/// Whether `slug` names the chain `brief` belongs to: its chain's slug, or for a session alone
/// (and no sub-agent) its own slug.
fn is_named_by_slug(brief: &SessionBrief, slug: &str) -> bool {
    match &brief.chain {
        Some(chain) => chain.slug.as_deref() == Some(slug),
        None => !brief.sub_agent && brief.session_slug.as_deref() == Some(slug),
    }
}

/// Puts the first `limit` items of `items` by `order` at its front, sorted (the rest follow
/// in no particular order).
fn first_in_order<T>(items: &mut [T], limit: usize, order: impl Fn(&T, &T) -> std::cmp::Ordering) {
    if items.len() > limit && limit > 0 {
        items.select_nth_unstable_by(limit - 1, &order);
    }
    let sorted = limit.min(items.len());
    items[..sorted].sort_unstable_by(&order);
}

/// A column normalized as [`Rows`](crate::mcp::rows::Rows) normalizes it (strings to Utf8,
/// integers to Int64, timestamps to UTC nanoseconds), nulls rejected unless `nullable`.
fn column_as(batch: &RecordBatch, name: &str, nullable: bool) -> Result<ArrayRef, RowError> {
    let column = batch
        .column_by_name(name)
        .ok_or_else(|| RowError::MissingColumn(name.to_owned()))?;
    let normalized = normalize_column(column).map_err(|source| RowError::Cast {
        column: name.to_owned(),
        source,
    })?;
    if !nullable && normalized.null_count() > 0 {
        return Err(RowError::UnexpectedNull(name.to_owned()));
    }
    Ok(normalized)
}

fn downcast<T: Clone + 'static>(
    array: ArrayRef,
    name: &str,
    expected: &'static str,
) -> Result<T, RowError> {
    array
        .as_any()
        .downcast_ref::<T>()
        .cloned()
        .ok_or_else(|| RowError::WrongType {
            column: name.to_owned(),
            expected,
        })
}

fn strings(batch: &RecordBatch, name: &str) -> Result<StringArray, RowError> {
    downcast(column_as(batch, name, false)?, name, "a string")
}

fn optional_strings(batch: &RecordBatch, name: &str) -> Result<StringArray, RowError> {
    downcast(column_as(batch, name, true)?, name, "a string")
}

fn integers(batch: &RecordBatch, name: &str) -> Result<Int64Array, RowError> {
    downcast(column_as(batch, name, false)?, name, "an integer")
}

fn optional_integers(batch: &RecordBatch, name: &str) -> Result<Int64Array, RowError> {
    downcast(column_as(batch, name, true)?, name, "an integer")
}

fn booleans(batch: &RecordBatch, name: &str) -> Result<BooleanArray, RowError> {
    downcast(column_as(batch, name, false)?, name, "a boolean")
}

fn timestamps(batch: &RecordBatch, name: &str) -> Result<TimestampNanosecondArray, RowError> {
    downcast(column_as(batch, name, true)?, name, "a timestamp")
}
