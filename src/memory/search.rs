//! Reads over the parts of a memory view — the folded index of the pinned generation and the
//! journal tail's index in memory — as if they were one index: BM25 with the statistics of
//! both (so a tail entry scores exactly as it will once folded), lookups by id, timeline
//! neighbours, the ingest dedupe key, recent entries and the keys retention reasons about.

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{Bm25StatisticsProvider, BooleanQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, TantivyDocument};
use tantivy::{DocAddress, Order, Searcher, Term};

use super::index::MemoryFields;
use super::journal::JournalRecord;
use crate::search::SearchError;

/// Candidates fetched beyond a page so ties at the cut are ordered like a single index.
const TIE_BREAK_SLACK: usize = 32;

/// One part of a view: a searcher and its fields.
#[derive(Clone)]
pub struct Part {
    pub searcher: Searcher,
    pub fields: MemoryFields,
}

/// A ranked search hit.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredRecord {
    pub record: JournalRecord,
    pub score: f32,
}

/// What `search` asks for.
#[derive(Debug, Clone, Copy)]
pub struct TextQuery<'a> {
    pub text: &'a str,
    pub project: Option<&'a str>,
    pub entry_type: Option<&'a str>,
    pub limit: usize,
    pub offset: usize,
}

/// The order key of an entry: created_at, then journal offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub created_at_micros: i64,
    pub offset: u64,
}

impl Position {
    pub fn of(record: &JournalRecord) -> Position {
        Position {
            created_at_micros: record.entry.created_at.timestamp_micros(),
            offset: record.offset,
        }
    }
}

/// What retention needs of every entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryKey {
    pub id: String,
    pub project: String,
    pub position: Position,
}

/// BM25 statistics summed over every part.
struct CombinedStatistics<'a>(&'a [Part]);

impl Bm25StatisticsProvider for CombinedStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.0
            .iter()
            .map(|part| part.searcher.total_num_tokens(field))
            .sum()
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.0
            .iter()
            .map(|part| Bm25StatisticsProvider::total_num_docs(&part.searcher))
            .sum()
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        self.0
            .iter()
            .map(|part| Bm25StatisticsProvider::doc_freq(&part.searcher, term))
            .sum()
    }
}

/// A hit before its document is loaded.
struct Candidate {
    part: usize,
    address: DocAddress,
    score: f32,
    position: Position,
}

/// BM25 over title and body (any query word matches), filtered by project and type, ordered
/// by score desc, created_at desc, journal offset desc; returns one page and the match count.
pub fn search(
    parts: &[Part],
    query: &TextQuery<'_>,
) -> Result<(Vec<ScoredRecord>, usize), SearchError> {
    let Some(first) = parts.first() else {
        return Ok((Vec::new(), 0));
    };
    let words = query_words(first, query.text);
    if words.is_empty() {
        return Ok((Vec::new(), 0));
    }
    let statistics = CombinedStatistics(parts);
    let fetch = query.offset + query.limit + TIE_BREAK_SLACK;
    let mut candidates = Vec::new();
    let mut total = 0;
    for (index, part) in parts.iter().enumerate() {
        let text_query = filtered(
            &part.fields,
            relevance(&part.fields, &words),
            query.project,
            query.entry_type,
        );
        let (top, count) = part.searcher.search_with_statistics_provider(
            &text_query,
            &(TopDocs::with_limit(fetch).order_by_score(), Count),
            &statistics,
        )?;
        total += count;
        for (score, address) in top {
            candidates.push(Candidate {
                part: index,
                address,
                score,
                position: position_at(part, address)?,
            });
        }
    }
    candidates.sort_by(|left, right| {
        right
            .score
            .total_cmp(&left.score)
            .then_with(|| right.position.cmp(&left.position))
    });
    let mut page = Vec::new();
    for candidate in candidates.into_iter().skip(query.offset).take(query.limit) {
        if let Some(record) = load(&parts[candidate.part], candidate.address)? {
            page.push(ScoredRecord {
                record,
                score: candidate.score,
            });
        }
    }
    Ok((page, total))
}

/// The distinct analyzed words of `text` (stemmed, lowercased).
fn query_words(part: &Part, text: &str) -> Vec<String> {
    let Ok(mut analyzer) = part.searcher.index().tokenizer_for_field(part.fields.body) else {
        return Vec::new();
    };
    let mut stream = analyzer.token_stream(text);
    let mut words = BTreeSet::new();
    while stream.advance() {
        words.insert(stream.token().text.clone());
    }
    words.into_iter().collect()
}

/// Any of `words` in the title or the body.
fn relevance(fields: &MemoryFields, words: &[String]) -> Box<dyn Query> {
    let clauses = words
        .iter()
        .flat_map(|word| [fields.title, fields.body].map(|field| (field, word)))
        .map(|(field, word)| {
            let term = Term::from_field_text(field, word);
            let query: Box<dyn Query> =
                Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
            (Occur::Should, query)
        })
        .collect();
    Box::new(BooleanQuery::new(clauses))
}

/// `query` restricted to a project and an entry type when given.
fn filtered(
    fields: &MemoryFields,
    query: Box<dyn Query>,
    project: Option<&str>,
    entry_type: Option<&str>,
) -> BooleanQuery {
    let mut clauses = vec![(Occur::Must, query)];
    for (field, value) in [(fields.project, project), (fields.entry_type, entry_type)] {
        if let Some(value) = value {
            clauses.push((Occur::Must, exact(field, value)));
        }
    }
    BooleanQuery::new(clauses)
}

fn exact(field: Field, value: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, value),
        IndexRecordOption::Basic,
    ))
}

fn position_at(part: &Part, address: DocAddress) -> Result<Position, SearchError> {
    let fast = part
        .searcher
        .segment_reader(address.segment_ord)
        .fast_fields();
    let created_at_micros = fast
        .i64("created_at")?
        .first(address.doc_id)
        .unwrap_or_default();
    let offset = fast
        .u64("journal_offset")?
        .first(address.doc_id)
        .unwrap_or_default();
    Ok(Position {
        created_at_micros,
        offset,
    })
}

fn load(part: &Part, address: DocAddress) -> Result<Option<JournalRecord>, SearchError> {
    let document: TantivyDocument = part.searcher.doc(address)?;
    Ok(part.fields.record(&document))
}

/// Every document matching `query` in every part, loaded (for small, bounded result sets).
fn load_all(
    parts: &[Part],
    query: impl Fn(&MemoryFields) -> Box<dyn Query>,
    limit: usize,
) -> Result<Vec<JournalRecord>, SearchError> {
    let mut records = Vec::new();
    for part in parts {
        let top = part.searcher.search(
            &query(&part.fields),
            &TopDocs::with_limit(limit.max(1)).order_by_score(),
        )?;
        for (_, address) in top {
            records.extend(load(part, address)?);
        }
    }
    Ok(records)
}

/// The entries with the given ids, by id (unknown ids are absent).
pub fn by_ids(parts: &[Part], ids: &[&str]) -> Result<HashMap<String, JournalRecord>, SearchError> {
    let distinct: BTreeSet<&str> = ids.iter().copied().collect();
    if distinct.is_empty() {
        return Ok(HashMap::new());
    }
    let query = |fields: &MemoryFields| -> Box<dyn Query> {
        let clauses = distinct
            .iter()
            .map(|id| (Occur::Should, exact(fields.id, id)))
            .collect();
        Box::new(BooleanQuery::new(clauses))
    };
    Ok(load_all(parts, query, distinct.len())?
        .into_iter()
        .map(|record| (record.entry.id.clone(), record))
        .collect())
}

/// The entry with `id`.
pub fn find(parts: &[Part], id: &str) -> Result<Option<JournalRecord>, SearchError> {
    Ok(by_ids(parts, &[id])?.remove(id))
}

/// Up to `before` entries of the anchor's project just before it and `after` just after it,
/// in (created_at, journal offset) order, with the anchor between them.
pub fn timeline(
    parts: &[Part],
    anchor: &JournalRecord,
    before: usize,
    after: usize,
) -> Result<Vec<JournalRecord>, SearchError> {
    let anchor_position = Position::of(anchor);
    let project = anchor.entry.project.as_str();
    // Entries created in the same microsecond as the anchor sit on either side of it by
    // journal offset: fetch enough to step over all of them.
    let ties = count_at(parts, project, anchor_position.created_at_micros)?;
    let mut earlier = neighbours(parts, project, anchor_position, Order::Desc, before + ties)?;
    earlier.retain(|record| Position::of(record) < anchor_position);
    earlier.sort_by_key(|record| std::cmp::Reverse(Position::of(record)));
    earlier.truncate(before);
    earlier.reverse();
    let mut later = neighbours(parts, project, anchor_position, Order::Asc, after + ties)?;
    later.retain(|record| Position::of(record) > anchor_position);
    later.sort_by_key(Position::of);
    later.truncate(after);
    let mut items = earlier;
    items.push(anchor.clone());
    items.extend(later);
    Ok(items)
}

/// How many entries of `project` were created in microsecond `micros`.
fn count_at(parts: &[Part], project: &str, micros: i64) -> Result<usize, SearchError> {
    let mut count = 0;
    for part in parts {
        let query = BooleanQuery::new(vec![
            (Occur::Must, exact(part.fields.project, project)),
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_i64(part.fields.created_at, micros),
                    IndexRecordOption::Basic,
                )),
            ),
        ]);
        count += part.searcher.search(&query, &Count)?;
    }
    Ok(count)
}

/// The `limit` entries of `project` nearest `from` on one side (its own microsecond
/// included), from each part.
fn neighbours(
    parts: &[Part],
    project: &str,
    from: Position,
    order: Order,
    limit: usize,
) -> Result<Vec<JournalRecord>, SearchError> {
    let mut records = Vec::new();
    if limit == 0 {
        return Ok(records);
    }
    for part in parts {
        let at = Term::from_field_i64(part.fields.created_at, from.created_at_micros);
        let range = match order {
            Order::Desc => RangeQuery::new(Bound::Unbounded, Bound::Included(at)),
            Order::Asc => RangeQuery::new(Bound::Included(at), Bound::Unbounded),
        };
        let query = BooleanQuery::new(vec![
            (Occur::Must, exact(part.fields.project, project)),
            (Occur::Must, Box::new(range)),
        ]);
        let top = part.searcher.search(&query, &by_position(limit, order))?;
        for (_, address) in top {
            records.extend(load(part, address)?);
        }
    }
    Ok(records)
}

/// A document's (created_at, journal offset) as fast fields hold them.
type PositionKey = (Option<i64>, Option<u64>);

/// The top `limit` documents by (created_at, journal offset) in `order`.
fn by_position(
    limit: usize,
    order: Order,
) -> impl tantivy::collector::Collector<Fruit = Vec<(PositionKey, DocAddress)>> {
    use tantivy::collector::sort_key::SortByStaticFastValue;
    TopDocs::with_limit(limit.max(1)).order_by((
        (SortByStaticFastValue::<i64>::for_field("created_at"), order),
        (
            SortByStaticFastValue::<u64>::for_field("journal_offset"),
            order,
        ),
    ))
}

/// Whether an entry with this source and content hash exists (the ingest dedupe key).
pub fn has_source_and_hash(
    parts: &[Part],
    source_ref: &str,
    content_hash: &str,
) -> Result<bool, SearchError> {
    for part in parts {
        let query = BooleanQuery::new(vec![
            (Occur::Must, exact(part.fields.source_ref, source_ref)),
            (Occur::Must, exact(part.fields.content_hash, content_hash)),
        ]);
        if part.searcher.search(&query, &Count)? > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The newest `limit` entries, optionally of one project and type, newest first.
pub fn recent(
    parts: &[Part],
    project: Option<&str>,
    entry_type: Option<&str>,
    limit: usize,
) -> Result<Vec<JournalRecord>, SearchError> {
    let mut records = Vec::new();
    for part in parts {
        let everything: Box<dyn Query> = Box::new(tantivy::query::AllQuery);
        let query = filtered(&part.fields, everything, project, entry_type);
        for (_, address) in part
            .searcher
            .search(&query, &by_position(limit, Order::Desc))?
        {
            records.extend(load(part, address)?);
        }
    }
    records.sort_by_key(|record| std::cmp::Reverse(Position::of(record)));
    records.truncate(limit);
    Ok(records)
}

/// How many entries the parts hold.
pub fn count(parts: &[Part]) -> u64 {
    parts.iter().map(|part| part.searcher.num_docs()).sum()
}

/// Id, project and position of every entry (of `project` when given), from fast fields.
pub fn keys(parts: &[Part], project: Option<&str>) -> Result<Vec<EntryKey>, SearchError> {
    let mut keys = Vec::new();
    for part in parts {
        for segment in part.searcher.segment_readers() {
            let fast = segment.fast_fields();
            let (Some(ids), Some(projects)) = (fast.str("id")?, fast.str("project")?) else {
                continue;
            };
            let created = fast.i64("created_at")?;
            let offsets = fast.u64("journal_offset")?;
            let (mut id, mut entry_project) = (String::new(), String::new());
            for doc in segment.doc_ids_alive() {
                let text = |column: &tantivy::columnar::StrColumn, out: &mut String| {
                    out.clear();
                    match column.term_ords(doc).next() {
                        Some(ord) => column.ord_to_str(ord, out).map(|_| ()),
                        None => Ok(()),
                    }
                };
                text(&projects, &mut entry_project).map_err(tantivy::TantivyError::from)?;
                if project.is_some_and(|wanted| wanted != entry_project) {
                    continue;
                }
                text(&ids, &mut id).map_err(tantivy::TantivyError::from)?;
                keys.push(EntryKey {
                    id: id.clone(),
                    project: entry_project.clone(),
                    position: Position {
                        created_at_micros: created.first(doc).unwrap_or_default(),
                        offset: offsets.first(doc).unwrap_or_default(),
                    },
                });
            }
        }
    }
    Ok(keys)
}
