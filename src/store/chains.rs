//! Continuation chains across sessions (Claude sessions sharing a slug, forks and resumes):
//! fills `previous_session_id` / `next_session_id` and the chain's slug, each member's
//! 1-based number and the chain's length, ordered by start time.

use std::collections::HashMap;

use datafusion::arrow::record_batch::RecordBatch;

use super::parquet_io::{
    column_int32, column_micros, column_strings, replace_int32_column, replace_string_column,
};

/// The columns [`link_continuations`] reads: who is in which chain, and in what order. A commit
/// whose touched sessions keep these values keeps every chain (`commit::chain_keys` compares
/// them: a column added here is added there).
pub const CHAIN_KEY_COLUMNS: [&str; 6] = [
    "session_id",
    "source",
    "session_slug",
    "parent_session_id",
    "forked_from_session_id",
    "started_at",
];
/// The columns [`link_continuations`] fills.
pub const CHAIN_COLUMNS: [&str; 6] = [
    "previous_session_id",
    "next_session_id",
    "chain_id",
    "chain_slug",
    "chain_number",
    "chain_length",
];

/// One session's values of the [`CHAIN_COLUMNS`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChainPosition {
    pub previous: Option<String>,
    pub next: Option<String>,
    pub chain_id: Option<String>,
    pub chain_slug: Option<String>,
    pub number: Option<i32>,
    pub length: Option<i32>,
}

/// The chain columns of every row of `sessions`.
pub fn chain_positions(sessions: &RecordBatch) -> Result<Vec<ChainPosition>, String> {
    let previous = column_strings(sessions, "previous_session_id")?;
    let next = column_strings(sessions, "next_session_id")?;
    let chain_id = column_strings(sessions, "chain_id")?;
    let chain_slug = column_strings(sessions, "chain_slug")?;
    let number = column_int32(sessions, "chain_number")?;
    let length = column_int32(sessions, "chain_length")?;
    Ok((0..sessions.num_rows())
        .map(|row| ChainPosition {
            previous: previous[row].clone(),
            next: next[row].clone(),
            chain_id: chain_id[row].clone(),
            chain_slug: chain_slug[row].clone(),
            number: number[row],
            length: length[row],
        })
        .collect())
}

/// Returns `sessions` with the chain columns of each row set to the position `positions`
/// gives its session id (none: not in a chain).
pub fn apply_chain_positions(
    sessions: &RecordBatch,
    positions: &HashMap<String, ChainPosition>,
) -> Result<RecordBatch, String> {
    let unchained = ChainPosition::default();
    let rows: Vec<&ChainPosition> = column_strings(sessions, "session_id")?
        .iter()
        .map(|id| {
            id.as_deref()
                .and_then(|id| positions.get(id))
                .unwrap_or(&unchained)
        })
        .collect();
    let strings = |pick: fn(&ChainPosition) -> &Option<String>| -> Vec<Option<String>> {
        rows.iter().map(|position| pick(position).clone()).collect()
    };
    let linked = replace_string_column(
        sessions,
        "previous_session_id",
        strings(|position| &position.previous),
    )?;
    let linked = replace_string_column(
        &linked,
        "next_session_id",
        strings(|position| &position.next),
    )?;
    let linked =
        replace_string_column(&linked, "chain_id", strings(|position| &position.chain_id))?;
    let linked = replace_string_column(
        &linked,
        "chain_slug",
        strings(|position| &position.chain_slug),
    )?;
    let linked = replace_int32_column(
        &linked,
        "chain_number",
        rows.iter().map(|position| position.number).collect(),
    )?;
    replace_int32_column(
        &linked,
        "chain_length",
        rows.iter().map(|position| position.length).collect(),
    )
}

/// Returns `sessions` with `previous_session_id`, `next_session_id`, `chain_id`, `chain_slug`,
/// `chain_number` and `chain_length` recomputed over all rows.
pub fn link_continuations(sessions: &RecordBatch) -> Result<RecordBatch, String> {
    let session_ids = column_strings(sessions, "session_id")?;
    let sources = column_strings(sessions, "source")?;
    let slugs = column_strings(sessions, "session_slug")?;
    let parents = column_strings(sessions, "parent_session_id")?;
    let forked_from = column_strings(sessions, "forked_from_session_id")?;
    let started_at = column_micros(sessions, "started_at")?;

    let row_count = session_ids.len();
    let row_of: HashMap<&str, usize> = session_ids
        .iter()
        .enumerate()
        .filter_map(|(row, id)| id.as_deref().map(|id| (id, row)))
        .collect();
    let mut chains = UnionFind::new(row_count);
    let mut first_row_with_slug: HashMap<(&str, &str), usize> = HashMap::new();
    for row in 0..row_count {
        let is_sub_agent = parents[row].is_some();
        if let (Some(source), Some(slug), false) =
            (sources[row].as_deref(), slugs[row].as_deref(), is_sub_agent)
        {
            let first = *first_row_with_slug.entry((source, slug)).or_insert(row);
            chains.union(first, row);
        }
        if let Some(origin_row) = forked_from[row].as_deref().and_then(|id| row_of.get(id)) {
            chains.union(*origin_row, row);
        }
    }

    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for row in 0..row_count {
        members.entry(chains.find(row)).or_default().push(row);
    }
    let mut previous: Vec<Option<String>> = vec![None; row_count];
    let mut next: Vec<Option<String>> = vec![None; row_count];
    let mut chain_id: Vec<Option<String>> = vec![None; row_count];
    let mut chain_slug: Vec<Option<String>> = vec![None; row_count];
    let mut chain_number: Vec<Option<i32>> = vec![None; row_count];
    let mut chain_length: Vec<Option<i32>> = vec![None; row_count];
    for mut chain in members.into_values().filter(|chain| chain.len() > 1) {
        chain.sort_by(|left, right| {
            started_at[*left]
                .cmp(&started_at[*right])
                .then_with(|| session_ids[*left].cmp(&session_ids[*right]))
        });
        for pair in chain.windows(2) {
            next[pair[0]] = session_ids[pair[1]].clone();
            previous[pair[1]] = session_ids[pair[0]].clone();
        }
        let slug = chain.iter().find_map(|row| slugs[*row].clone());
        let length = i32::try_from(chain.len()).unwrap_or(i32::MAX);
        let first = session_ids[chain[0]].clone();
        for (position, row) in chain.iter().enumerate() {
            chain_id[*row] = first.clone();
            chain_slug[*row] = slug.clone();
            chain_number[*row] = i32::try_from(position + 1).ok();
            chain_length[*row] = Some(length);
        }
    }
    let linked = replace_string_column(sessions, "previous_session_id", previous)?;
    let linked = replace_string_column(&linked, "next_session_id", next)?;
    let linked = replace_string_column(&linked, "chain_id", chain_id)?;
    let linked = replace_string_column(&linked, "chain_slug", chain_slug)?;
    let linked = replace_int32_column(&linked, "chain_number", chain_number)?;
    replace_int32_column(&linked, "chain_length", chain_length)
}

struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(size: usize) -> UnionFind {
        UnionFind {
            parent: (0..size).collect(),
        }
    }

    fn find(&mut self, item: usize) -> usize {
        let mut root = item;
        while self.parent[root] != root {
            root = self.parent[root];
        }
        let mut current = item;
        while self.parent[current] != root {
            let next = self.parent[current];
            self.parent[current] = root;
            current = next;
        }
        root
    }

    fn union(&mut self, left: usize, right: usize) {
        let left_root = self.find(left);
        let right_root = self.find(right);
        if left_root != right_root {
            self.parent[right_root] = left_root;
        }
    }
}
