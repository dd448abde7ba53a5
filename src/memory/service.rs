//! The six memory operations of seed 001, shared by the MCP `memory` profile and
//! `esker memory`: each takes a typed request, validates it (defaults, clamps, the policy)
//! and answers the seed's response object or a [`MemoryError`]. Validation and policy errors
//! change nothing; a save is durable (journal, fsync) before it returns. Calls block (disk,
//! tantivy): async callers run them on the blocking pool.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use super::entry::{DEFAULT_ENTRY_TYPE, Draft, MemoryEntry, format_time};
use super::folder::FolderHandle;
use super::ingest_docs::{self, IngestReport, IngestRequest};
use super::journal::{Journal, JournalRecord};
use super::policy::Policy;
use super::retention::{self, RetentionReport, RetentionRequest};
use super::search::{self, TextQuery};
use super::view::{MemoryReader, MemoryView};
use super::{ErrorCode, MemoryError};
use crate::store::Store;

/// `search` limit when none is given, and its bounds.
pub const DEFAULT_SEARCH_LIMIT: i64 = 20;
pub const MAX_SEARCH_LIMIT: i64 = 100;
/// `timeline` depth when none is given, and its bound.
pub const DEFAULT_DEPTH: i64 = 3;
pub const MAX_DEPTH: i64 = 20;
/// Most ids one `get_entries` call may ask for.
pub const MAX_BATCH_IDS: usize = 200;
/// Longest `search` query, in characters (as `search_sessions` allows).
pub const MAX_QUERY_CHARS: usize = 4096;

/// What the service defaults to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemorySettings {
    /// The project of entries that name none (`--project`, else the working directory's
    /// last path component).
    pub project: String,
    /// Where `ingest_docs` resolves relative paths (the working directory).
    pub project_root: PathBuf,
}

impl MemorySettings {
    /// The working directory's settings, with `project` when one is given.
    pub fn from_cwd(project: Option<&str>) -> MemorySettings {
        let project_root = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let project = project
            .map(str::trim)
            .filter(|project| !project.is_empty())
            .map(str::to_owned)
            .unwrap_or_else(|| project_of_dir(&project_root));
        MemorySettings {
            project,
            project_root,
        }
    }
}

/// A directory's last path component (`default` for `/`).
pub fn project_of_dir(dir: &std::path::Path) -> String {
    dir.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "default".to_owned())
}

/// `save_memory`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SaveResponse {
    pub status: &'static str,
    pub id: String,
    pub created_at: String,
}

/// The seed's `EntryIndexItem`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexItem {
    pub id: String,
    pub title: String,
    pub entry_type: String,
    pub project: String,
    pub created_at: String,
    pub score: f32,
}

/// The seed's `EntryDetailItem`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetailItem {
    pub id: String,
    pub title: String,
    pub body: String,
    pub entry_type: String,
    pub project: String,
    pub session_id: Option<String>,
    pub source_ref: Option<String>,
    pub metadata: Map<String, Value>,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResponse {
    pub items: Vec<IndexItem>,
    pub total: usize,
    pub limit: i64,
    pub offset: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineResponse {
    pub anchor_id: String,
    pub items: Vec<IndexItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntriesResponse {
    pub items: Vec<DetailItem>,
}

/// What `search` asks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchRequest {
    pub query: String,
    pub project: Option<String>,
    pub entry_type: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

/// What `timeline` asks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimelineRequest {
    pub anchor_id: String,
    pub depth_before: Option<i64>,
    pub depth_after: Option<i64>,
}

/// The memory operations over one store.
pub struct MemoryService {
    store: Store,
    journal: Journal,
    reader: MemoryReader,
    policy: Policy,
    settings: MemorySettings,
    /// Asked to fold after each successful write (the server's background folder).
    folder: Option<FolderHandle>,
}

impl MemoryService {
    pub fn new(store: Store, policy: Policy, settings: MemorySettings) -> MemoryService {
        MemoryService {
            journal: Journal::of_store(store.data_dir()),
            reader: MemoryReader::new(store.clone()),
            store,
            policy,
            settings,
            folder: None,
        }
    }

    /// Asks `folder` to fold after every write.
    pub fn with_folder(mut self, folder: FolderHandle) -> MemoryService {
        self.folder = Some(folder);
        self
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn settings(&self) -> &MemorySettings {
        &self.settings
    }

    /// A view of every entry, folded or still in the journal.
    pub fn view(&self) -> Result<MemoryView, MemoryError> {
        Ok(self.reader.view()?)
    }

    /// `save_memory`: validates, checks the policy, appends to the journal and syncs it.
    pub fn save(&self, draft: Draft) -> Result<SaveResponse, MemoryError> {
        let entry = draft.normalize(&self.settings.project, DEFAULT_ENTRY_TYPE, now())?;
        self.policy
            .check(&entry.body, &entry.title, &entry.metadata)?;
        self.append(std::slice::from_ref(&entry))?;
        Ok(SaveResponse {
            status: "saved",
            created_at: entry.created_at_text(),
            id: entry.id,
        })
    }

    fn append(&self, entries: &[MemoryEntry]) -> Result<(), MemoryError> {
        self.journal.append(entries)?;
        if let Some(folder) = &self.folder {
            folder.request();
        }
        Ok(())
    }

    /// `search`: BM25 over title and body, any query word.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResponse, MemoryError> {
        let text = request.query.trim();
        if text.is_empty() {
            return Err(MemoryError::invalid("query", "query is required"));
        }
        if text.chars().count() > MAX_QUERY_CHARS {
            return Err(MemoryError::invalid(
                "query",
                format!("query exceeds {MAX_QUERY_CHARS} characters"),
            ));
        }
        let limit = request
            .limit
            .unwrap_or(DEFAULT_SEARCH_LIMIT)
            .clamp(1, MAX_SEARCH_LIMIT);
        let offset = request.offset.unwrap_or(0).max(0);
        let view = self.view()?;
        let available = search::count(&view.parts) as usize;
        let (hits, total) = search::search(
            &view.parts,
            &TextQuery {
                text,
                project: trimmed(request.project.as_deref()),
                entry_type: trimmed(request.entry_type.as_deref()),
                limit: limit as usize,
                offset: (offset as usize).min(available),
            },
        )?;
        Ok(SearchResponse {
            items: hits
                .into_iter()
                .map(|hit| index_item(&hit.record, hit.score))
                .collect(),
            total,
            limit,
            offset,
        })
    }

    /// `timeline`: the anchor's neighbours in its project, in created_at order.
    pub fn timeline(&self, request: &TimelineRequest) -> Result<TimelineResponse, MemoryError> {
        let anchor_id = request.anchor_id.trim();
        if anchor_id.is_empty() {
            return Err(MemoryError::invalid("anchor_id", "anchor_id is required"));
        }
        let depth =
            |value: Option<i64>| value.unwrap_or(DEFAULT_DEPTH).clamp(0, MAX_DEPTH) as usize;
        let view = self.view()?;
        let anchor = search::find(&view.parts, anchor_id)?.ok_or_else(|| {
            MemoryError::new(ErrorCode::EntryNotFound, "anchor entry was not found")
                .with_detail("anchor_id", anchor_id)
        })?;
        let items = search::timeline(
            &view.parts,
            &anchor,
            depth(request.depth_before),
            depth(request.depth_after),
        )?;
        Ok(TimelineResponse {
            anchor_id: anchor.entry.id.clone(),
            items: items.iter().map(|record| index_item(record, 0.0)).collect(),
        })
    }

    /// `get_entries`: full entries in the requested order; unknown ids are left out.
    pub fn get_entries(&self, ids: &[String]) -> Result<EntriesResponse, MemoryError> {
        if ids.len() > MAX_BATCH_IDS {
            return Err(
                MemoryError::invalid("ids", "ids exceeds maximum batch size")
                    .with_detail("max", MAX_BATCH_IDS)
                    .with_detail("count", ids.len()),
            );
        }
        let wanted: Vec<&str> = ids
            .iter()
            .map(|id| id.trim())
            .filter(|id| !id.is_empty())
            .collect();
        if wanted.is_empty() {
            return Err(MemoryError::invalid("ids", "ids is required"));
        }
        let view = self.view()?;
        let found = search::by_ids(&view.parts, &wanted)?;
        Ok(EntriesResponse {
            items: wanted
                .iter()
                .filter_map(|id| found.get(*id))
                .map(detail_item)
                .collect(),
        })
    }

    /// `ingest_docs`: imports the sources not already stored with the same content. Every
    /// new document passes the policy before any is written; all are written in one sync.
    pub fn ingest_docs(&self, request: &IngestRequest) -> Result<IngestReport, MemoryError> {
        let source_refs = request.source_refs()?;
        let view = self.view()?;
        let mut report = IngestReport::default();
        let mut entries: Vec<MemoryEntry> = Vec::new();
        let created_at = now();
        for source_ref in source_refs {
            let Some(document) = ingest_docs::read_source(&self.settings.project_root, &source_ref)
            else {
                report.skipped_sources.push(source_ref);
                continue;
            };
            report.processed_sources += 1;
            let already_stored = search::has_source_and_hash(
                &view.parts,
                &document.source_ref,
                &document.content_hash,
            )?;
            let in_this_call = entries.iter().any(|entry| {
                entry.source_ref.as_deref() == Some(&document.source_ref)
                    && entry.content_hash.as_deref() == Some(&document.content_hash)
            });
            if already_stored || in_this_call {
                report.duplicate_entries += 1;
                continue;
            }
            let mut metadata = Map::new();
            metadata.insert("ingestion".into(), Value::Bool(true));
            metadata.insert(
                "source_ref".into(),
                Value::String(document.source_ref.clone()),
            );
            let entry = Draft {
                text: document.body,
                title: Some(document.title),
                project: request.project.clone(),
                entry_type: request.entry_type.clone(),
                source_ref: Some(document.source_ref.clone()),
                session_id: None,
                metadata: Some(metadata),
            }
            .normalize(
                &self.settings.project,
                ingest_docs::DEFAULT_ENTRY_TYPE,
                created_at,
            )?;
            self.policy
                .check(&entry.body, &entry.title, &entry.metadata)
                .map_err(|error| error.with_detail("source", document.source_ref.clone()))?;
            entries.push(entry);
        }
        if !entries.is_empty() {
            self.append(&entries)?;
        }
        report.imported_entries = entries.len();
        Ok(report)
    }

    /// `retention_dry_run`: the candidates of the rules; deletes nothing.
    pub fn retention_dry_run(
        &self,
        request: &RetentionRequest,
    ) -> Result<RetentionReport, MemoryError> {
        let rules = request.rules()?;
        let view = self.view()?;
        let keys = search::keys(&view.parts, trimmed(request.project.as_deref()))?;
        Ok(retention::evaluate(&rules, &keys))
    }

    /// The newest entries (`esker memory list`), optionally of one project and type.
    pub fn recent(
        &self,
        project: Option<&str>,
        entry_type: Option<&str>,
        limit: usize,
    ) -> Result<Vec<DetailItem>, MemoryError> {
        let view = self.view()?;
        let records = search::recent(
            &view.parts,
            trimmed(project),
            trimmed(entry_type),
            limit.max(1),
        )?;
        Ok(records.iter().map(detail_item).collect())
    }
}

/// Now, to the microsecond (the precision every table and index keeps).
fn now() -> DateTime<Utc> {
    let now = Utc::now();
    DateTime::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
}

fn trimmed(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|value| !value.is_empty())
}

fn index_item(record: &JournalRecord, score: f32) -> IndexItem {
    let entry = &record.entry;
    IndexItem {
        id: entry.id.clone(),
        title: entry.title.clone(),
        entry_type: entry.entry_type.clone(),
        project: entry.project.clone(),
        created_at: format_time(entry.created_at),
        score,
    }
}

fn detail_item(record: &JournalRecord) -> DetailItem {
    let entry = &record.entry;
    DetailItem {
        id: entry.id.clone(),
        title: entry.title.clone(),
        body: entry.body.clone(),
        entry_type: entry.entry_type.clone(),
        project: entry.project.clone(),
        session_id: entry.session_id.clone(),
        source_ref: entry.source_ref.clone(),
        metadata: entry.metadata.clone(),
        created_at: format_time(entry.created_at),
    }
}
