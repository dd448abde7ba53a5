//! Continuation chains across sessions (Claude sessions sharing a slug, forks and resumes):
//! fills `previous_session_id` / `next_session_id` and the chain's slug, each member's
//! 1-based number and the chain's length, ordered by start time, then end time.
//!
//! The end time breaks ties because Claude Code's continued sessions start together: a
//! continued session is a new file whose first records are copies of the whole previous
//! conversation, timestamps included, so every member of such a chain starts at the first
//! session's first record and only its end tells it apart (issue #48: ranges picked members
//! by session id among equal starts). The end time is read, not compared by a commit
//! (`commit::chain_keys` keeps the six keys before it): an append moves a session's end
//! later, which reorders nothing unless two members that started together are appended in
//! turn (two continuations of one session run side by side); those settle at the next
//! commit that relinks their chain (a new member, a changed slug or fork).

use std::collections::{HashMap, HashSet};

use datafusion::arrow::array::{BooleanArray, StringArray};
use datafusion::arrow::record_batch::RecordBatch;

use super::parquet_io::{
    column_int32, column_micros, column_string_array, column_strings, replace_int32_column,
    replace_string_column,
};

/// The columns [`link_continuations`] reads: who is in which chain, and in what order. A commit
/// whose touched sessions keep the first six keeps every chain (`commit::chain_keys` compares
/// them: a column added before `updated_at` is added there); `updated_at`, the tie-break of
/// equal starts, is read only (see the module doc).
pub const CHAIN_KEY_COLUMNS: [&str; 7] = [
    "session_id",
    "source",
    "session_slug",
    "parent_session_id",
    "forked_from_session_id",
    "started_at",
    "updated_at",
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
    let updated_at = column_micros(sessions, "updated_at")?;

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
                .then_with(|| updated_at[*left].cmp(&updated_at[*right]))
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

/// Which rows of `sessions` (the [`CHAIN_KEY_COLUMNS`] of every session after a commit) are
/// in a chain that `seeds` can reach: `seeds` are the key rows of the sessions a commit
/// touched, as stored before it and as written by it. [`link_continuations`] joins two rows
/// when they share a source and slug (neither a sub-agent) or one forks from the other, so a
/// chain holding no seed, before or after, is the chain it was: relinking the marked rows
/// alone gives every marked row the position a relink of all rows gives it, and every other
/// row keeps its stored one. Read over the key columns as they are, without a string copied
/// per row: a commit of a few new sessions at 10^6 sessions marks a few rows.
pub fn rows_in_touched_chains(
    sessions: &RecordBatch,
    seeds: &[&RecordBatch],
) -> Result<BooleanArray, String> {
    let mut reach = ChainReach::default();
    for batch in seeds {
        let keys = LinkKeys::of(batch)?;
        for row in 0..batch.num_rows() {
            reach.absorb(&keys, row);
        }
    }
    let keys = LinkKeys::of(sessions)?;
    let mut marked = vec![false; sessions.num_rows()];
    loop {
        let mut grew = false;
        for (row, mark) in marked.iter_mut().enumerate() {
            if !*mark && reach.reaches(&keys, row) {
                *mark = true;
                reach.absorb(&keys, row);
                grew = true;
            }
        }
        if !grew {
            return Ok(BooleanArray::from(marked));
        }
    }
}

/// The columns that link two sessions.
struct LinkKeys {
    ids: StringArray,
    sources: StringArray,
    slugs: StringArray,
    parents: StringArray,
    forked_from: StringArray,
}

impl LinkKeys {
    fn of(batch: &RecordBatch) -> Result<LinkKeys, String> {
        Ok(LinkKeys {
            ids: column_string_array(batch, "session_id")?,
            sources: column_string_array(batch, "source")?,
            slugs: column_string_array(batch, "session_slug")?,
            parents: column_string_array(batch, "parent_session_id")?,
            forked_from: column_string_array(batch, "forked_from_session_id")?,
        })
    }

    fn value(array: &StringArray, row: usize) -> Option<&str> {
        use datafusion::arrow::array::Array;
        array.is_valid(row).then(|| array.value(row))
    }

    /// The (source, slug) a row chains by: none for a sub-agent or a row without a slug.
    fn slug(&self, row: usize) -> Option<(&str, &str)> {
        if Self::value(&self.parents, row).is_some() {
            return None;
        }
        Some((
            Self::value(&self.sources, row)?,
            Self::value(&self.slugs, row)?,
        ))
    }
}

/// What the rows found so far link to: their slugs, their ids and the ids they fork from.
#[derive(Default)]
struct ChainReach {
    /// Slugs by source.
    slugs: HashMap<String, HashSet<String>>,
    ids: HashSet<String>,
    origins: HashSet<String>,
}

impl ChainReach {
    fn absorb(&mut self, keys: &LinkKeys, row: usize) {
        if let Some((source, slug)) = keys.slug(row) {
            self.slugs
                .entry(source.to_string())
                .or_default()
                .insert(slug.to_string());
        }
        if let Some(id) = LinkKeys::value(&keys.ids, row) {
            self.ids.insert(id.to_string());
        }
        if let Some(origin) = LinkKeys::value(&keys.forked_from, row) {
            self.origins.insert(origin.to_string());
        }
    }

    fn reaches(&self, keys: &LinkKeys, row: usize) -> bool {
        let shares_slug = keys.slug(row).is_some_and(|(source, slug)| {
            self.slugs
                .get(source)
                .is_some_and(|slugs| slugs.contains(slug))
        });
        let id = LinkKeys::value(&keys.ids, row);
        shares_slug
            || id.is_some_and(|id| self.ids.contains(id) || self.origins.contains(id))
            || LinkKeys::value(&keys.forked_from, row)
                .is_some_and(|origin| self.ids.contains(origin))
    }
}

/// One session's [`CHAIN_KEY_COLUMNS`] as plain values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChainKeyRow {
    pub session_id: String,
    pub source: String,
    pub slug: Option<String>,
    pub parent: Option<String>,
    pub forked_from: Option<String>,
    pub started_at_micros: i64,
    pub updated_at_micros: i64,
}

/// The key columns of `rows` with empty chain columns: what [`link_continuations`] and
/// [`rows_in_touched_chains`] read, for tests and benchmarks that make sessions by hand.
pub fn chain_key_batch(rows: &[ChainKeyRow]) -> Result<RecordBatch, String> {
    use std::sync::Arc;

    use datafusion::arrow::array::{ArrayRef, Int32Array, TimestampMicrosecondArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema, TimeUnit};

    let text = |name: &str| Field::new(name, DataType::Utf8, true);
    let mut fields: Vec<Field> = CHAIN_KEY_COLUMNS[..5]
        .iter()
        .map(|name| text(name))
        .collect();
    fields.extend(CHAIN_KEY_COLUMNS[5..].iter().map(|name| {
        Field::new(
            *name,
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            false,
        )
    }));
    fields.extend(CHAIN_COLUMNS[..4].iter().map(|name| text(name)));
    fields.extend(
        CHAIN_COLUMNS[4..]
            .iter()
            .map(|name| Field::new(*name, DataType::Int32, true)),
    );
    let strings = |pick: fn(&ChainKeyRow) -> Option<&str>| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(pick).collect::<Vec<_>>()))
    };
    let started: Vec<i64> = rows.iter().map(|row| row.started_at_micros).collect();
    let updated: Vec<i64> = rows.iter().map(|row| row.updated_at_micros).collect();
    let empty_text: ArrayRef = Arc::new(StringArray::from(vec![None::<&str>; rows.len()]));
    let empty_number: ArrayRef = Arc::new(Int32Array::from(vec![None; rows.len()]));
    RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        vec![
            strings(|row| Some(row.session_id.as_str())),
            strings(|row| Some(row.source.as_str())),
            strings(|row| row.slug.as_deref()),
            strings(|row| row.parent.as_deref()),
            strings(|row| row.forked_from.as_deref()),
            Arc::new(TimestampMicrosecondArray::from(started).with_timezone("UTC")),
            Arc::new(TimestampMicrosecondArray::from(updated).with_timezone("UTC")),
            empty_text.clone(),
            empty_text.clone(),
            empty_text.clone(),
            empty_text,
            empty_number.clone(),
            empty_number,
        ],
    )
    .map_err(|error| error.to_string())
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

#[cfg(test)]
mod tests {
    use datafusion::arrow::compute::filter_record_batch;

    use super::*;

    fn batch(rows: &[ChainKeyRow]) -> RecordBatch {
        chain_key_batch(rows).expect("batch")
    }

    /// Each session id's chain position.
    fn positions_by_id(linked: &RecordBatch) -> HashMap<String, ChainPosition> {
        let ids = column_strings(linked, "session_id").expect("ids");
        ids.into_iter()
            .map(|id| id.expect("id"))
            .zip(chain_positions(linked).expect("positions"))
            .collect()
    }

    /// A small deterministic generator (no dependency for one test).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, bound: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % bound
        }
    }

    fn random_session(random: &mut Lcg, number: u64) -> ChainKeyRow {
        let slug = (random.below(2) == 0).then(|| format!("slug-{}", random.below(6)));
        let parent = (random.below(8) == 0).then(|| format!("s{}", random.below(number + 1)));
        // Forks name an earlier session, or one that does not exist.
        let forked_from = (random.below(6) == 0).then(|| format!("s{}", random.below(number + 3)));
        ChainKeyRow {
            session_id: format!("s{number}"),
            source: ["claude", "codex"][random.below(2) as usize].to_string(),
            slug,
            parent,
            forked_from,
            started_at_micros: random.below(50) as i64,
            updated_at_micros: 50 + random.below(50) as i64,
        }
    }

    #[test]
    fn continued_sessions_that_start_together_are_ordered_by_their_end() {
        // Claude Code's continuations copy the conversation they continue, timestamps
        // included: the chain's members all start at the first one's first record.
        let member = |id: &str, updated_at_micros: i64| ChainKeyRow {
            session_id: id.to_string(),
            source: "claude".to_string(),
            slug: Some("humble-doodling-wolf".to_string()),
            started_at_micros: 1_000,
            updated_at_micros,
            ..ChainKeyRow::default()
        };
        let rows = [
            member("s-d", 4_000),
            member("s-a", 3_000),
            member("s-c", 1_500),
            member("s-b", 2_000),
        ];
        let positions = positions_by_id(&link_continuations(&batch(&rows)).expect("link"));
        let order: Vec<(&str, Option<i32>)> = ["s-c", "s-b", "s-a", "s-d"]
            .into_iter()
            .map(|id| (id, positions[id].number))
            .collect();
        assert_eq!(
            order,
            vec![
                ("s-c", Some(1)),
                ("s-b", Some(2)),
                ("s-a", Some(3)),
                ("s-d", Some(4))
            ]
        );
        assert_eq!(positions["s-b"].previous.as_deref(), Some("s-c"));
        assert_eq!(positions["s-b"].next.as_deref(), Some("s-a"));
        assert_eq!(positions["s-d"].chain_id.as_deref(), Some("s-c"));
    }

    #[test]
    fn relinking_the_touched_chains_equals_relinking_every_session() {
        let mut restricted_somewhere = false;
        for seed in 0..60 {
            let mut random = Lcg(seed);
            let stored: Vec<ChainKeyRow> = (0..50)
                .map(|number| random_session(&mut random, number))
                .collect();
            let stored_batch = link_continuations(&batch(&stored)).expect("link");
            let stored_positions = positions_by_id(&stored_batch);

            // A commit: a few sessions change their keys, one is removed, two are new.
            let mut touched: Vec<ChainKeyRow> = Vec::new();
            for _ in 0..3 {
                let mut changed = stored[random.below(50) as usize].clone();
                match random.below(3) {
                    0 => changed.slug = Some(format!("slug-{}", random.below(6))),
                    1 => changed.forked_from = Some(format!("s{}", random.below(50))),
                    _ => changed.started_at_micros = random.below(50) as i64,
                }
                touched.push(changed);
            }
            touched.extend((50..52).map(|number| random_session(&mut random, number)));
            let removed = format!("s{}", random.below(50));
            let touched_ids: HashSet<String> = touched
                .iter()
                .map(|row| row.session_id.clone())
                .chain([removed.clone()])
                .collect();
            let mut after: Vec<ChainKeyRow> = stored
                .iter()
                .filter(|row| !touched_ids.contains(&row.session_id))
                .cloned()
                .collect();
            let mut new_rows: Vec<ChainKeyRow> = Vec::new();
            for row in touched.iter().filter(|row| row.session_id != removed) {
                new_rows.retain(|kept: &ChainKeyRow| kept.session_id != row.session_id);
                new_rows.push(row.clone());
            }
            after.extend(new_rows.iter().cloned());
            let expected = positions_by_id(&link_continuations(&batch(&after)).expect("link"));

            // What a commit does: the untouched rows as stored, the new rows, seeded by the
            // touched sessions' stored and new key rows.
            let untouched: Vec<bool> = column_strings(&stored_batch, "session_id")
                .expect("ids")
                .iter()
                .map(|id| !touched_ids.contains(id.as_deref().unwrap_or_default()))
                .collect();
            let kept = filter_record_batch(&stored_batch, &BooleanArray::from(untouched.clone()))
                .expect("filter");
            let old_touched = filter_record_batch(
                &stored_batch,
                &BooleanArray::from(untouched.iter().map(|kept| !kept).collect::<Vec<_>>()),
            )
            .expect("filter");
            let new_batch = batch(&new_rows);
            let keys = datafusion::arrow::compute::concat_batches(
                &stored_batch.schema(),
                &[kept, new_batch.clone()],
            )
            .expect("concat");
            let marked = rows_in_touched_chains(&keys, &[&old_touched, &new_batch]).expect("mark");
            let relinked =
                link_continuations(&filter_record_batch(&keys, &marked).expect("filter"))
                    .expect("link");
            let mut positions = positions_by_id(&relinked);
            let ids = column_strings(&keys, "session_id").expect("ids");
            for (row, id) in ids.iter().enumerate() {
                let id = id.clone().expect("id");
                if !marked.value(row) {
                    positions.insert(id.clone(), stored_positions[&id].clone());
                }
            }
            for row in &after {
                assert_eq!(
                    positions.get(&row.session_id),
                    expected.get(&row.session_id),
                    "seed {seed}: session {}",
                    row.session_id
                );
            }
            restricted_somewhere |= marked.true_count() < keys.num_rows();
        }
        assert!(
            restricted_somewhere,
            "some commit relinks fewer than all rows"
        );
    }
}
