//! The server's warm view of the store: one DataFusion context (on the catalog's one runtime,
//! whose caches outlive commits, with the `session_index` and `turn_index` tables of
//! [`crate::service::directory`], in memory once loaded), one tantivy reader and the [`Directory`]
//! lookups for the current generation, reopened only when `esker index` commits a new one,
//! plus the runners for named SQL queries (`queries/*.sql`, planned once per generation) and
//! for index searches. Those readers ([`GenerationReaders`]) are shared by every
//! [`Catalog::scoped`] view of the store (a team server's token scopes, issue #54); a
//! [`WarmSnapshot`] is the current generation seen through one catalog's project scope.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::DataFusionError;
use datafusion::execution::SessionState;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::physical_plan::{collect, execute_stream};
use datafusion::prelude::SessionContext;
use datafusion::scalar::ScalarValue;
use futures::StreamExt;
use tokio::sync::Mutex;

use crate::heap::Resident;
use crate::indexer::status::IngestMonitor;
use crate::model::EventType;
use crate::query::keyed_scan::Warmed;
use crate::query::prepared::PreparedPlan;
use crate::query::serving::{ServingRuntime, serving_runtime_within};
use crate::query::session_set::{SessionSets, in_session_set_udf};
use crate::query::{QueryError, read_only_options, serving_context_for};
use crate::search::boolean::MatchExpression;
use crate::search::cancel::Cancellation;
use crate::search::session_filter::ScopeSessions;
use crate::search::{EventLocation, SearchError, SearchIndex, SearchQuery, SearchResults};
use crate::service::bucketed_table::BucketedTable;
use crate::service::directory::{
    Directory, DirectoryError, IndexTables, SESSION_INDEX_BUCKET_ROWS, SESSION_INDEX_COLUMNS,
    SESSION_INDEX_ROWS, SESSION_INDEX_SESSION_ROWS, TURN_INDEX_BUCKET_ROWS, TURN_INDEX_COLUMNS,
    TURN_INDEX_ROWS, TURN_INDEX_SESSION_ROWS, register_index_tables,
};
use crate::service::envelope::ToolError;
use crate::service::keyed_table::RowCollector;
use crate::service::project_scope::{self, ProjectScope, ServingScope};
use crate::service::rows::{RowError, Rows};
use crate::store::commit::{ChangedRows, TURN_BUCKETS, changed_rows, table_column_bytes};
use crate::store::{PinnedSnapshot, Snapshot, Store, StoreError};

/// Failures below the tool layer; they all surface as `internal_error`.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error("query {name} failed: {source}")]
    NamedQuery {
        name: &'static str,
        source: DataFusionError,
    },
    #[error("query {name} returned unexpected rows: {source}")]
    Rows {
        name: &'static str,
        source: RowError,
    },
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error("search task failed: {0}")]
    SearchTask(String),
    #[error("directory task failed: {0}")]
    DirectoryTask(String),
    #[error(transparent)]
    Directory(#[from] DirectoryError),
    #[error("the sessions of the server's scope could not be read: {0}")]
    Scope(String),
}

impl From<CatalogError> for ToolError {
    fn from(error: CatalogError) -> ToolError {
        tracing::error!(%error, "tool failed");
        ToolError::internal(error.to_string())
    }
}

/// One SQL statement from `queries/`, compiled in, with `$1...` placeholders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NamedQuery {
    pub name: &'static str,
    pub sql: &'static str,
}

/// How requests are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerPath {
    /// `session_index` and `turn_index` are loaded into memory (a key filter is a lookup there)
    /// and serve the same SQL once loaded; event rows are read from Parquet.
    Fastest,
    /// Every answer is the same SQL over the Parquet tables, `session_index` and `turn_index`
    /// staying views (the reference the in-memory tables are tested against).
    SqlOnly,
}

/// The store as the server sees it, through one project scope (or none).
pub struct Catalog {
    /// The store's readers, shared by every catalog [`Catalog::scoped`] made from this one: a
    /// team server's tokens of different projects read one warm generation (issue #54).
    shared: Arc<SharedReaders>,
    /// What the indexer says about itself (an external one unless the server indexes).
    ingest: IngestMonitor,
    /// The semantic search leg (issue #23), when it is on and has a model.
    semantic: Option<Arc<crate::semantic::Leg>>,
    /// `esker serve --project-only`: the project every answer is limited to (issue #13); a
    /// team server's token: its projects and machines (issue #54).
    scope: Option<Arc<ServingScope>>,
    /// The current generation's sessions inside `scope`, read on first use, per generation.
    scope_sessions: std::sync::Mutex<Option<ScopeSessionsCell>>,
}

/// What every scope of one store shares: the store, its answer path, the warm readers of the
/// current generation and DataFusion's runtime.
struct SharedReaders {
    store: Store,
    path: AnswerPath,
    /// The memory the server keeps under: the in-memory directory is loaded only when its
    /// estimate ([`directory_fits`]) is at most half of it.
    memory_limit: u64,
    warm: Mutex<Option<Arc<GenerationReaders>>>,
    /// DataFusion's runtime for every generation this catalog opens: its file metadata and
    /// statistics caches and the files' key runs outlive commits ([`crate::query::serving`]).
    runtime: ServingRuntime,
}

/// A generation's in-scope session ids, read once by the first request that needs them.
type InScopeCell = Arc<tokio::sync::OnceCell<Arc<HashSet<String>>>>;

/// The generation a scope's session ids were read for, and the cell holding them.
type ScopeSessionsCell = (u64, InScopeCell);

/// One generation as one scope sees it: the generation's shared readers (every method of
/// [`GenerationReaders`] is reachable through `Deref`), the catalog's semantic leg and its
/// project scope. Cheap: made per request by [`Catalog::snapshot`].
pub struct WarmSnapshot {
    readers: Arc<GenerationReaders>,
    /// The catalog's semantic leg, fused into [`WarmSnapshot::search`].
    semantic: Option<Arc<crate::semantic::Leg>>,
    /// The catalog's scope; every answer of this snapshot is limited to its sessions.
    scope: Option<Arc<ServingScope>>,
    /// The ids of this generation's sessions inside `scope`, read on first use.
    sessions_in_scope: InScopeCell,
}

impl std::ops::Deref for WarmSnapshot {
    type Target = GenerationReaders;

    fn deref(&self) -> &GenerationReaders {
        &self.readers
    }
}

/// Readers opened on one generation; shared by the requests (of every scope) that run while
/// it is current.
pub struct GenerationReaders {
    pub generation: u64,
    context: SessionContext,
    /// Each named query run on this generation, planned and optimized on first use and bound
    /// to each request's parameters (plans hold this generation's tables). Keyed by name and
    /// text, so that two statements of one name never share a plan.
    plans: std::sync::Mutex<HashMap<NamedQuery, Arc<PreparedPlan>>>,
    index: SearchIndex,
    /// `session_index` and `turn_index` as registered in `context`.
    index_tables: IndexTables,
    /// The session sets of the scopes reading this generation, by [`ServingScope::key`]
    /// (`in_session_set` in `context`).
    session_sets: Arc<SessionSets>,
    /// Whether the index tables are loaded into memory (the answer path is `Fastest`).
    in_memory: bool,
    /// Carried over from the replaced generation's (requests wait for that up to
    /// [`CARRY_WAIT`]) or loaded in the background after the generation opens
    /// ([`Catalog::snapshot`]); until it is ready, requests are answered over Parquet, so a
    /// cold start never waits.
    directory: tokio::sync::OnceCell<Directory>,
    /// Set when the directory was carried over from the replaced generation's.
    refresh: std::sync::OnceLock<DirectoryRefresh>,
    /// Keeps the generation's files on disk while any request still reads them.
    pin: PinnedSnapshot,
    /// The runtime whose caches the keyed tables' files are read ahead into.
    runtime: ServingRuntime,
    /// What the read-ahead of the keyed tables' files cached, once it ended
    /// ([`read_ahead_in_background`]).
    read_ahead: Arc<tokio::sync::OnceCell<Warmed>>,
}

/// How a generation's directory was carried over from the generation it replaced: the
/// buckets read again whole (a base file rewritten), the sessions read again alone (only a
/// hot file rewritten), and the rows read for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryRefresh {
    pub from_generation: u64,
    pub buckets: BTreeSet<u64>,
    pub sessions: BTreeSet<String>,
    pub sessions_read: usize,
    pub turns_read: usize,
}

/// An index search, owned so it can run on the blocking pool.
#[derive(Debug, Clone)]
pub struct IndexSearch {
    pub text: String,
    pub session_id: Option<String>,
    pub turn_id: Option<String>,
    pub event_types: Vec<EventType>,
    /// Only events of this source (`codex`, `claude`, ...).
    pub source: Option<String>,
    pub limit: usize,
}

impl Catalog {
    /// Opens the store at `data_dir` (creating an empty one if needed).
    pub fn open(data_dir: &Path) -> Result<Catalog, CatalogError> {
        Catalog::open_with(data_dir, AnswerPath::Fastest)
    }

    /// Opens the store answering through `path`.
    pub fn open_with(data_dir: &Path, path: AnswerPath) -> Result<Catalog, CatalogError> {
        Catalog::open_within(data_dir, path, serving_memory_limit())
    }

    /// Opens the store answering through `path` under `memory_limit` bytes: past half of it,
    /// the index tables are answered over Parquet instead of loaded into memory.
    pub fn open_within(
        data_dir: &Path,
        path: AnswerPath,
        memory_limit: u64,
    ) -> Result<Catalog, CatalogError> {
        let shared = SharedReaders {
            store: Store::open(data_dir)?,
            path,
            memory_limit,
            warm: Mutex::new(None),
            runtime: serving_runtime_within(memory_limit).map_err(QueryError::from)?,
        };
        Ok(Catalog {
            shared: Arc::new(shared),
            ingest: IngestMonitor::external(),
            semantic: None,
            scope: None,
            scope_sessions: std::sync::Mutex::new(None),
        })
    }

    /// The catalog fusing `leg`'s vector hits into searches (`None`: lexical only).
    pub fn with_semantic_leg(mut self, leg: Option<Arc<crate::semantic::Leg>>) -> Catalog {
        self.semantic = leg;
        self
    }

    /// The catalog reporting the progress of the indexer that `monitor` follows.
    pub fn with_ingest_monitor(mut self, monitor: IngestMonitor) -> Catalog {
        self.ingest = monitor;
        self
    }

    /// The catalog answering only for sessions inside `scope` (`None`: every session).
    pub fn with_project_scope(mut self, scope: Option<ProjectScope>) -> Catalog {
        self.scope = scope.map(|project| Arc::new(ServingScope::of_project(project)));
        self.scope_sessions = std::sync::Mutex::new(None);
        self
    }

    /// This catalog's store, readers, indexer and semantic leg seen through `scope`: the warm
    /// generation is opened (and its directory loaded) once for every scope.
    pub fn scoped(&self, scope: Option<ServingScope>) -> Catalog {
        Catalog {
            shared: Arc::clone(&self.shared),
            ingest: self.ingest.clone(),
            semantic: self.semantic.clone(),
            scope: scope.map(Arc::new),
            scope_sessions: std::sync::Mutex::new(None),
        }
    }

    /// The project this catalog is limited to, when the server is project-only (or a token's
    /// scope names projects).
    pub fn project_scope(&self) -> Option<&ProjectScope> {
        self.scope.as_deref().and_then(ServingScope::project)
    }

    /// Everything this catalog is limited to (a project, a token's machines).
    pub fn serving_scope(&self) -> Option<&ServingScope> {
        self.scope.as_deref()
    }

    pub fn ingest_monitor(&self) -> &IngestMonitor {
        &self.ingest
    }

    /// DataFusion's runtime shared by every generation (its caches).
    pub fn runtime(&self) -> &Arc<RuntimeEnv> {
        &self.shared.runtime.env
    }

    /// The key runs of the files every generation's keyed scans read.
    pub fn key_cache(&self) -> &Arc<crate::query::keyed_scan::FileKeyCache> {
        &self.shared.runtime.file_keys
    }

    /// The store this catalog reads.
    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    /// The current generation through this catalog's scope, its readers reopened when a new
    /// generation was committed.
    pub async fn snapshot(&self) -> Result<Arc<WarmSnapshot>, CatalogError> {
        let readers = self.shared.readers().await?;
        let sessions_in_scope = self.scope_sessions_of(readers.generation);
        Ok(Arc::new(WarmSnapshot {
            readers,
            semantic: self.semantic.clone(),
            scope: self.scope.clone(),
            sessions_in_scope,
        }))
    }

    /// The cell of `generation`'s in-scope session ids (a fresh one for a new generation).
    fn scope_sessions_of(&self, generation: u64) -> InScopeCell {
        let mut kept = self
            .scope_sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match kept.as_ref() {
            Some((kept_generation, cell)) if *kept_generation == generation => Arc::clone(cell),
            _ => {
                let cell = InScopeCell::default();
                *kept = Some((generation, Arc::clone(&cell)));
                cell
            }
        }
    }
}

impl SharedReaders {
    /// The readers of the current generation, reopened when a new one was committed.
    async fn readers(&self) -> Result<Arc<GenerationReaders>, CatalogError> {
        let current = self.store.current()?;
        let mut warm = self.warm.lock().await;
        if let Some(snapshot) = warm.as_ref().filter(|s| s.generation == current.generation) {
            return Ok(Arc::clone(snapshot));
        }
        let started = std::time::Instant::now();
        let pin = self.store.pin_current()?;
        // A loaded directory is carried on (a refresh grows it by what a commit adds); any
        // other generation loads one only when it fits ([`directory_fits`]; a carry that
        // falls back to a full load checks again, see `load_in_background`).
        let carried = warm
            .as_ref()
            .is_some_and(|previous| previous.in_memory && previous.directory.get().is_some());
        let in_memory = self.path == AnswerPath::Fastest
            && (carried || directory_fits(&pin.root, self.memory_limit));
        let opened = GenerationReaders::open(pin, in_memory, &self.runtime).await?;
        let snapshot = Arc::new(opened);
        tracing::info!(
            generation = snapshot.generation,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "opened store generation"
        );
        // The replaced generation's loaded directory is carried over, reading only the
        // buckets the commit rewrote. Requests wait for that up to CARRY_WAIT (a refresh takes
        // ~0.1 s at a million documents, about what an answer over Parquet takes); past it
        // they go on over Parquet while the refresh ends in the background.
        let carrying = match warm.take() {
            Some(previous) if snapshot.in_memory && previous.directory.get().is_some() => {
                let carrier = Arc::clone(&snapshot);
                Some(tokio::spawn(async move {
                    let carried = carrier.carry_directory(&previous).await;
                    drop(previous);
                    if carried {
                        // The replaced tables' rows that were not carried are free now.
                        tokio::task::spawn_blocking(crate::heap::release_free_memory);
                    }
                    carried
                }))
            }
            _ => None,
        };
        // The keyed files are read ahead once the directory is carried or loaded: both take
        // a core, and a server's first answers and a commit's refresh come first.
        match carrying {
            Some(mut carry) => match tokio::time::timeout(CARRY_WAIT, &mut carry).await {
                Ok(Ok(true)) => read_ahead_in_background(&snapshot),
                Ok(_) => read_ahead_after(
                    load_in_background(&snapshot, Some(self.memory_limit)),
                    &snapshot,
                ),
                Err(_) => {
                    let loading = Arc::clone(&snapshot);
                    let memory_limit = self.memory_limit;
                    tokio::spawn(async move {
                        if !matches!(carry.await, Ok(true)) {
                            let _ = load_in_background(&loading, Some(memory_limit)).await;
                        }
                        read_ahead_in_background(&loading);
                    });
                }
            },
            // Its size was estimated when the generation was opened.
            None if snapshot.in_memory => {
                read_ahead_after(load_in_background(&snapshot, None), &snapshot);
            }
            None if self.path == AnswerPath::Fastest => read_ahead_in_background(&snapshot),
            None => {}
        }
        *warm = Some(Arc::clone(&snapshot));
        Ok(snapshot)
    }
}

/// Session ids per lookup statement when a refresh reads sessions alone (the keyed scan pins
/// at most 256 keys).
const SESSIONS_PER_LOOKUP: usize = 256;

/// The memory limit every catalog of this process opens with (`--memory-limit` of `esker
/// serve` and `esker ui`), once set.
static SERVING_MEMORY_LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Sets the memory limit catalogs opened from now on serve under (the first call wins).
pub fn set_serving_memory_limit(bytes: u64) {
    let _ = SERVING_MEMORY_LIMIT.set(bytes);
}

fn serving_memory_limit() -> u64 {
    SERVING_MEMORY_LIMIT
        .get()
        .copied()
        .unwrap_or(crate::indexer::run::DEFAULT_MEMORY_LIMIT)
}

/// Whether the generation at `root`'s in-memory directory fits in half of `memory_limit`: its
/// columns' uncompressed bytes (from the files' footers), doubled for the string views, key
/// indexes and zone maps beside them. An unreadable footer counts as fitting (the load then
/// fails on its own and answers go over Parquet).
fn directory_fits(root: &Path, memory_limit: u64) -> bool {
    let estimate =
        table_column_bytes(&root.join("sessions"), &SESSION_INDEX_COLUMNS).and_then(|sessions| {
            table_column_bytes(&root.join("turns"), &TURN_INDEX_COLUMNS)
                .map(|turns| sessions + turns)
        });
    match estimate {
        Ok(bytes) if bytes.saturating_mul(2) > memory_limit / 2 => {
            tracing::info!(
                directory_estimate_mib = bytes.saturating_mul(2) >> 20,
                memory_limit_mib = memory_limit >> 20,
                "the in-memory directory would pass half of the memory limit: list_sessions \
                 and the hits' sessions are answered over Parquet"
            );
            false
        }
        Ok(_) => true,
        Err(error) => {
            tracing::warn!(%error, "directory size not estimated; loading it");
            true
        }
    }
}

/// How long a request waits for a new generation's directory to be carried over from the
/// replaced one's before it is answered over Parquet.
const CARRY_WAIT: std::time::Duration = std::time::Duration::from_millis(150);

/// Reads `snapshot`'s directory whole in the background; with `memory_limit`, only when it
/// fits in half of it ([`directory_fits`]: a carry that fell back to a full load was not
/// estimated, and a grown store may no longer fit). Requests are answered over Parquet until
/// it is loaded, so a cold start never waits.
fn load_in_background(
    snapshot: &Arc<GenerationReaders>,
    memory_limit: Option<u64>,
) -> tokio::task::JoinHandle<()> {
    let loading = Arc::clone(snapshot);
    tokio::spawn(async move {
        if let Some(memory_limit) = memory_limit {
            let root = loading.pin.root.clone();
            let fits =
                tokio::task::spawn_blocking(move || directory_fits(&root, memory_limit)).await;
            if !matches!(fits, Ok(true)) {
                return;
            }
        }
        let started = std::time::Instant::now();
        match loading.ready_directory().await {
            Ok(directory) => tracing::info!(
                generation = loading.generation,
                sessions = directory.session_count(),
                turns = directory.turn_count(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "directory loaded"
            ),
            Err(error) => tracing::warn!(%error, "directory not loaded; answering by SQL"),
        }
    })
}

/// Reads `snapshot`'s keyed files ahead once `loading` (its directory's load) has ended.
fn read_ahead_after(loading: tokio::task::JoinHandle<()>, snapshot: &Arc<GenerationReaders>) {
    let reading = Arc::clone(snapshot);
    tokio::spawn(async move {
        let _ = loading.await;
        read_ahead_in_background(&reading);
    });
}

/// Reads ahead, in the background, the key runs and footers of `snapshot`'s keyed files that
/// the process has not cached ([`crate::query::warm_keyed_files`]): a long-lived server's
/// first lookups then plan and open files from memory (one-shot commands answer on the
/// `SqlOnly` path and read nothing ahead). Only files a commit added are read for a later
/// generation; the read stops once the generation is neither current nor serving a request.
/// A second call for the same generation finds the first one's result.
fn read_ahead_in_background(snapshot: &Arc<GenerationReaders>) {
    let readers = Arc::downgrade(snapshot);
    let done = Arc::clone(&snapshot.read_ahead);
    tokio::spawn(async move {
        if let Err(error) = done.get_or_try_init(|| read_ahead_of(readers)).await {
            tracing::debug!(%error, "keyed files not read ahead");
        }
    });
}

/// Lists the keyed files of `readers`' generation and reads them ahead on the blocking pool
/// while the generation is in use (nothing when it no longer is).
async fn read_ahead_of(
    readers: std::sync::Weak<GenerationReaders>,
) -> Result<Warmed, CatalogError> {
    let started = std::time::Instant::now();
    let (generation, files, runtime) = {
        let Some(in_use) = readers.upgrade() else {
            return Ok(Warmed::default());
        };
        let files = crate::query::keyed_files(&in_use.context).await?;
        (in_use.generation, files, in_use.runtime.clone())
    };
    let warmed = tokio::task::spawn_blocking(move || {
        crate::query::warm_keyed_files(&files, &runtime, &|| readers.strong_count() > 0)
    })
    .await
    .map_err(|error| CatalogError::DirectoryTask(error.to_string()))?;
    tracing::info!(
        generation,
        key_files = warmed.key_files,
        footers = warmed.footers,
        footer_kib = warmed.footer_bytes >> 10,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "read the keyed files ahead"
    );
    Ok(warmed)
}

impl GenerationReaders {
    async fn open(
        pin: PinnedSnapshot,
        in_memory: bool,
        runtime: &ServingRuntime,
    ) -> Result<GenerationReaders, CatalogError> {
        let snapshot: &Snapshot = &pin;
        // The tables and the search index open at the same time (a few 100 ms each at 1M
        // documents: file listings, segment metadata).
        let index_snapshot = snapshot.clone();
        let started = std::time::Instant::now();
        let index = tokio::task::spawn_blocking(move || {
            let started = std::time::Instant::now();
            SearchIndex::open(&index_snapshot).map(|index| (index, started.elapsed()))
        });
        let context = serving_context_for(snapshot, runtime).await?;
        let registered = started.elapsed();
        let session_sets = Arc::new(SessionSets::default());
        context.register_udf(in_session_set_udf(Arc::clone(&session_sets)));
        let index_tables =
            register_index_tables(&context)
                .await
                .map_err(|source| CatalogError::NamedQuery {
                    name: "index_tables",
                    source,
                })?;
        let tables = started.elapsed();
        let (index, index_opening) = index
            .await
            .map_err(|error| CatalogError::SearchTask(error.to_string()))??;
        // What a new generation's first answer waits for (at 10M: 50-85 ms in all).
        tracing::debug!(
            generation = snapshot.generation,
            tables_ms = tables.as_millis() as u64,
            registered_ms = registered.as_millis() as u64,
            search_index_ms = index_opening.as_millis() as u64,
            "opened a generation's tables and search index"
        );
        Ok(GenerationReaders {
            generation: snapshot.generation,
            context,
            plans: std::sync::Mutex::new(HashMap::new()),
            index,
            index_tables,
            session_sets,
            in_memory,
            directory: tokio::sync::OnceCell::new(),
            refresh: std::sync::OnceLock::new(),
            pin,
            runtime: runtime.clone(),
            read_ahead: Arc::default(),
        })
    }

    /// Waits for the read-ahead of this generation's keyed files ([`read_ahead_in_background`];
    /// started now if it was not), what a benchmark of a warm server waits for.
    pub async fn read_ahead(self: &Arc<Self>) -> Result<Warmed, CatalogError> {
        self.read_ahead
            .get_or_try_init(|| read_ahead_of(Arc::downgrade(self)))
            .await
            .copied()
    }

    /// The directory, loading it now if no one has started to (a concurrent load is awaited);
    /// on the `SqlOnly` path it is read but not served.
    pub async fn ready_directory(&self) -> Result<&Directory, CatalogError> {
        self.directory
            .get_or_try_init(|| self.load_directory())
            .await
    }

    /// Reads the index tables' rows and serves the tables from memory.
    async fn load_directory(&self) -> Result<Directory, CatalogError> {
        let directory = self.read_directory().await?;
        if self.in_memory {
            self.index_tables.install(&directory);
        }
        Ok(directory)
    }

    /// Takes over `previous`'s loaded directory, refreshed with the buckets that differ
    /// ([`Self::refreshed_directory`]), and serves it; `false` when there is nothing to carry
    /// or the refresh failed (the directory is then read whole in the background).
    async fn carry_directory(&self, previous: &Arc<GenerationReaders>) -> bool {
        let (refreshed, refresh) = match self.refreshed_directory(previous).await {
            Ok(Some(refreshed)) => refreshed,
            Ok(None) => return false,
            Err(error) => {
                tracing::warn!(%error, "directory not carried over; reading it whole");
                return false;
            }
        };
        // A request that could not wait may have started a full load meanwhile: it serves.
        if self.directory.set(refreshed).is_ok() {
            let _ = self.refresh.set(refresh);
            if let Some(directory) = self.directory.get() {
                self.index_tables.install(directory);
            }
        }
        true
    }

    /// `previous`'s loaded directory with the rows of `sessions` and `turns` that differ
    /// between the two generations read again ([`changed_rows`]: whole buckets where a base
    /// file was rewritten, single sessions where only a hot file was); `None` when there is
    /// nothing to carry (no loaded directory, a file outside the bucket layout, or most buckets
    /// changed). The sessions' merge runs beside the read of the turns, each merge on the
    /// blocking pool.
    async fn refreshed_directory(
        &self,
        previous: &Arc<GenerationReaders>,
    ) -> Result<Option<(Directory, DirectoryRefresh)>, CatalogError> {
        if previous.directory.get().is_none() {
            return Ok(None);
        }
        let started = std::time::Instant::now();
        let Some(changed) = changed_rows(&previous.pin.root, &self.pin.root)? else {
            return Ok(None);
        };
        if changed.buckets.len() as u64 > TURN_BUCKETS / 2 {
            return Ok(None);
        }
        let changed = Arc::new(changed);
        let mut sessions = self.index_tables.session_rows();
        self.stream_changed(
            &changed,
            [SESSION_INDEX_BUCKET_ROWS, SESSION_INDEX_SESSION_ROWS],
            &mut sessions,
        )
        .await?;
        let sessions_read = sessions.row_count();
        let merging_sessions =
            merge_in_background(previous, &changed, sessions, Directory::refreshed_sessions);
        let mut turns = self.index_tables.turn_rows();
        self.stream_changed(
            &changed,
            [TURN_INDEX_BUCKET_ROWS, TURN_INDEX_SESSION_ROWS],
            &mut turns,
        )
        .await?;
        let turns_read = turns.row_count();
        let read_us = started.elapsed().as_micros() as u64;
        let turns =
            merge_in_background(previous, &changed, turns, Directory::refreshed_turns).await?;
        let directory = Directory::from_tables(merging_sessions.await?, turns);
        tracing::info!(
            generation = self.generation,
            from_generation = previous.generation,
            buckets = changed.buckets.len(),
            sessions = changed.sessions.len(),
            sessions_read,
            turns_read,
            read_us,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "directory refreshed"
        );
        let refresh = DirectoryRefresh {
            from_generation: previous.generation,
            buckets: changed.buckets.clone(),
            sessions: changed.sessions.clone(),
            sessions_read,
            turns_read,
        };
        Ok(Some((directory, refresh)))
    }

    /// Streams into `rows` the rows of `changed`: its buckets' through `by_bucket` and its
    /// sessions' through `by_session`, [`SESSIONS_PER_LOOKUP`] ids at a time.
    async fn stream_changed(
        &self,
        changed: &ChangedRows,
        [by_bucket, by_session]: [NamedQuery; 2],
        rows: &mut RowCollector,
    ) -> Result<(), CatalogError> {
        if !changed.buckets.is_empty() {
            let buckets: Vec<ScalarValue> = changed
                .buckets
                .iter()
                .map(|bucket| ScalarValue::Int64(Some(*bucket as i64)))
                .collect();
            let listed = ScalarValue::List(ScalarValue::new_list_nullable(
                &buckets,
                &datafusion::arrow::datatypes::DataType::Int64,
            ));
            self.stream_into(by_bucket, vec![listed], rows).await?;
        }
        let session_ids: Vec<ScalarValue> = changed
            .sessions
            .iter()
            .map(|session_id| ScalarValue::Utf8(Some(session_id.clone())))
            .collect();
        for chunk in session_ids.chunks(SESSIONS_PER_LOOKUP) {
            let listed = ScalarValue::List(ScalarValue::new_list_nullable(
                chunk,
                &datafusion::arrow::datatypes::DataType::Utf8,
            ));
            self.stream_into(by_session, vec![listed], rows).await?;
        }
        Ok(())
    }

    /// Reads the index tables' rows (through their views) into memory. One table after the
    /// other, each streamed into its collector batch by batch and sorted there (at 10M
    /// documents, the two loads side by side, each collecting DataFusion's sorted batches and
    /// then concatenating and compacting them, peaked at 2.4 GB).
    async fn read_directory(&self) -> Result<Directory, CatalogError> {
        let mut sessions = self.index_tables.session_rows();
        self.stream_into(SESSION_INDEX_ROWS, Vec::new(), &mut sessions)
            .await?;
        let sessions = Directory::session_table(sessions)?;
        let mut turns = self.index_tables.turn_rows();
        self.stream_into(TURN_INDEX_ROWS, Vec::new(), &mut turns)
            .await?;
        let turns = Directory::turn_table(turns)?;
        let directory = Directory::from_tables(sessions, turns);
        // The load's sort, concatenation and compaction copies are freed now; the allocator
        // keeps them (glibc: 1.3 of 2.3 GB at 10M documents; jemalloc until its decay) unless
        // asked to return them.
        let released = tokio::task::spawn_blocking(|| {
            let before = Resident::read();
            crate::heap::release_free_memory();
            before.zip(Resident::read())
        })
        .await;
        if let Ok(Some((before, after))) = released {
            tracing::debug!(
                anonymous_mib_before = Resident::mib(before.anonymous),
                anonymous_mib_after = Resident::mib(after.anonymous),
                peak_mib = Resident::mib(after.peak),
                "directory load's freed memory returned"
            );
        }
        Ok(directory)
    }

    /// How the directory was carried over from the replaced generation's; `None` when it was
    /// read whole (or is not loaded yet).
    pub fn directory_refresh(&self) -> Option<&DirectoryRefresh> {
        self.refresh.get()
    }

    /// The in-memory index tables once loaded, on the `Fastest` path.
    pub fn directory(&self) -> Option<&Directory> {
        self.directory.get().filter(|_| self.in_memory)
    }

    /// Whether `table` has `column` in this generation (columns added by later versions are
    /// read only when present).
    pub async fn has_column(&self, table: &str, column: &str) -> bool {
        match self.context.table_provider(table).await {
            Ok(provider) => provider.schema().field_with_name(column).is_ok(),
            Err(_) => false,
        }
    }

    /// Runs a named query with its parameters bound to `$1...` in order.
    pub async fn run(
        &self,
        query: NamedQuery,
        parameters: Vec<ScalarValue>,
    ) -> Result<Rows, CatalogError> {
        let batches = self.run_batches(query, parameters).await?;
        Rows::from_batches(&batches).map_err(|source| CatalogError::Rows {
            name: query.name,
            source,
        })
    }

    /// Runs a named query whose rows lie in many files (the hits of a search: about one file
    /// each; the touches of a file name: every `file_touches` bucket) with the files split
    /// across the machine's cores: opening and decoding a file costs about a millisecond and
    /// the files are independent. Every other query runs on one partition (requests run side
    /// by side instead).
    pub async fn run_spread(
        &self,
        query: NamedQuery,
        parameters: Vec<ScalarValue>,
    ) -> Result<Rows, CatalogError> {
        let mut state = self.context.state();
        state.config_mut().options_mut().execution.target_partitions = cores();
        let batches = self.run_batches_in(state, query, parameters).await?;
        Rows::from_batches(&batches).map_err(|source| CatalogError::Rows {
            name: query.name,
            source,
        })
    }

    /// Runs a named query and returns its Arrow batches as DataFusion produced them.
    pub async fn run_batches(
        &self,
        query: NamedQuery,
        parameters: Vec<ScalarValue>,
    ) -> Result<Vec<RecordBatch>, CatalogError> {
        self.run_batches_in(self.context.state(), query, parameters)
            .await
    }

    async fn run_batches_in(
        &self,
        state: SessionState,
        query: NamedQuery,
        parameters: Vec<ScalarValue>,
    ) -> Result<Vec<RecordBatch>, CatalogError> {
        let failed = |source| CatalogError::NamedQuery {
            name: query.name,
            source,
        };
        let started = std::time::Instant::now();
        let prepared = self.plan_of(query, &parameters).await.map_err(failed)?;
        let plan = prepared
            .physical_plan(&state, parameters)
            .await
            .map_err(failed)?;
        let planned_us = started.elapsed().as_micros() as u64;
        let batches = collect(plan, state.task_ctx()).await.map_err(failed)?;
        tracing::debug!(
            query = query.name,
            rows = batches.iter().map(RecordBatch::num_rows).sum::<usize>(),
            planned_us,
            optimized_once = prepared.is_optimized(),
            elapsed_us = started.elapsed().as_micros() as u64,
            "named query"
        );
        Ok(batches)
    }

    /// Runs `query` with `parameters` and hands each batch to `rows` as it arrives.
    async fn stream_into(
        &self,
        query: NamedQuery,
        parameters: Vec<ScalarValue>,
        rows: &mut RowCollector,
    ) -> Result<(), CatalogError> {
        let failed = |source| CatalogError::NamedQuery {
            name: query.name,
            source,
        };
        let started = std::time::Instant::now();
        let state = self.context.state();
        let prepared = self.plan_of(query, &parameters).await.map_err(failed)?;
        let plan = prepared
            .physical_plan(&state, parameters)
            .await
            .map_err(failed)?;
        let mut stream = execute_stream(plan, state.task_ctx()).map_err(failed)?;
        let mut row_count = 0;
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(failed)?;
            row_count += batch.num_rows();
            rows.push(&batch).map_err(DirectoryError::from)?;
        }
        tracing::debug!(
            query = query.name,
            rows = row_count,
            elapsed_us = started.elapsed().as_micros() as u64,
            "named query streamed"
        );
        Ok(())
    }

    /// `query` planned and optimized for this generation, placeholders unbound: on its first
    /// run (typed after `parameters`), then cloned per request.
    async fn plan_of(
        &self,
        query: NamedQuery,
        parameters: &[ScalarValue],
    ) -> Result<Arc<PreparedPlan>, DataFusionError> {
        if let Some(plan) = self.cached_plan(&query) {
            return Ok(plan);
        }
        let state = self.context.state();
        let plan = state.create_logical_plan(query.sql).await?;
        read_only_options().verify_plan(&plan)?;
        let prepared = Arc::new(PreparedPlan::new(&state, plan, parameters)?);
        self.plans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(query, Arc::clone(&prepared));
        Ok(prepared)
    }

    fn cached_plan(&self, query: &NamedQuery) -> Option<Arc<PreparedPlan>> {
        self.plans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(query)
            .cloned()
    }

    /// Where an event's row lives (an exact term lookup: microseconds, run inline).
    pub fn locate_event(&self, event_id: &str) -> Result<Option<EventLocation>, CatalogError> {
        Ok(self.index.locate(event_id)?)
    }

    /// Where the rows of a turn's events live (partition and session).
    pub fn locate_turn(&self, turn_id: &str) -> Result<Option<EventLocation>, CatalogError> {
        Ok(self.index.locate_turn(turn_id)?)
    }
}

impl WarmSnapshot {
    /// The project answers are limited to, when the server is project-only.
    pub fn project_scope(&self) -> Option<&ProjectScope> {
        self.scope.as_deref().and_then(ServingScope::project)
    }

    /// The generation's directory (its tables, index and pull record).
    pub fn generation_root(&self) -> &Path {
        &self.readers.pin.root
    }

    /// Waits for the read-ahead of the generation's keyed files (started now if it was not).
    pub async fn read_ahead(&self) -> Result<Warmed, CatalogError> {
        self.readers.read_ahead().await
    }

    /// The ids of this generation's sessions inside the scope (read once per generation, and
    /// registered as the scope's session set for SQL); `None` when the server is not scoped.
    pub async fn sessions_in_scope(&self) -> Result<Option<Arc<HashSet<String>>>, CatalogError> {
        let Some(scope) = self.scope.as_deref() else {
            return Ok(None);
        };
        let sessions = self
            .sessions_in_scope
            .get_or_try_init(|| async {
                let sessions = Arc::new(project_scope::sessions_in_scope(self, scope).await?);
                self.readers
                    .session_sets
                    .insert(scope.key(), Arc::clone(&sessions));
                Ok::<_, CatalogError>(sessions)
            })
            .await?;
        Ok(Some(Arc::clone(sessions)))
    }

    /// The scope's session ids as the search index filters by them (named by the scope, so
    /// the index finds each segment's documents of the scope once).
    async fn scope_sessions(&self) -> Result<Option<ScopeSessions>, CatalogError> {
        let Some(scope) = self.scope.as_deref() else {
            return Ok(None);
        };
        let ids = self.sessions_in_scope().await?.unwrap_or_default();
        Ok(Some(ScopeSessions {
            name: scope.key().to_owned(),
            ids,
        }))
    }

    /// The two SQL parameters of a query's scope filter,
    /// `(NOT $n OR in_session_set(session_id, $n+1))`: whether the server is scoped, and the
    /// name of the scope's session set (registered here first).
    pub async fn scope_parameters(&self) -> Result<[ScalarValue; 2], CatalogError> {
        let Some(scope) = self.scope.as_deref() else {
            return Ok([ScalarValue::Boolean(Some(false)), text_parameter("")]);
        };
        self.sessions_in_scope().await?;
        Ok([
            ScalarValue::Boolean(Some(true)),
            text_parameter(scope.key()),
        ])
    }

    /// Runs a BM25 search, fused with the semantic leg when there is one, on the blocking pool.
    /// Dropping the future (a call cut at its deadline) stops the search at its next check.
    pub async fn search(
        self: &Arc<Self>,
        search: IndexSearch,
    ) -> Result<SearchResults, CatalogError> {
        let snapshot = Arc::clone(self);
        let sessions = self.scope_sessions().await?;
        cancellable_search(move |cancel| {
            let leg = snapshot.semantic.as_deref();
            crate::semantic::hybrid_search(
                &snapshot.index,
                leg,
                &SearchQuery {
                    text: &search.text,
                    session_id: search.session_id.as_deref(),
                    turn_id: search.turn_id.as_deref(),
                    event_types: &search.event_types,
                    source: search.source.as_deref(),
                    sessions: sessions.as_ref(),
                    limit: search.limit,
                    cancel: Some(cancel),
                },
            )
        })
        .await
    }

    /// Runs a boolean combination of relevance queries ([`MatchExpression`]) over events of
    /// `event_types`, on the blocking pool; the best `limit` hits. Dropping the future stops
    /// the search, as for [`WarmSnapshot::search`].
    pub async fn search_expression(
        self: &Arc<Self>,
        expression: MatchExpression,
        event_types: Vec<EventType>,
        limit: usize,
    ) -> Result<SearchResults, CatalogError> {
        let snapshot = Arc::clone(self);
        let sessions = self.scope_sessions().await?;
        cancellable_search(move |cancel| {
            let scope = SearchQuery {
                text: "",
                session_id: None,
                turn_id: None,
                event_types: &event_types,
                source: None,
                sessions: sessions.as_ref(),
                limit,
                cancel: Some(cancel),
            };
            snapshot.index.search_expression(&expression, &scope)
        })
        .await
    }
}

/// Runs `search` on the blocking pool with a [`Cancellation`] that dropping the returned
/// future raises (a call cut at its deadline), so the search stops at its next check instead
/// of running on beside later calls.
async fn cancellable_search(
    search: impl FnOnce(&Cancellation) -> Result<SearchResults, SearchError> + Send + 'static,
) -> Result<SearchResults, CatalogError> {
    let cancel = Cancellation::new();
    let _stop_when_dropped = cancel.cancel_on_drop();
    tokio::task::spawn_blocking(move || search(&cancel))
        .await
        .map_err(|error| CatalogError::SearchTask(error.to_string()))?
        .map_err(CatalogError::from)
}

/// A string parameter.
pub fn text_parameter(value: &str) -> ScalarValue {
    ScalarValue::Utf8(Some(value.to_owned()))
}

/// A UTC timestamp parameter, in nanoseconds.
pub fn timestamp_parameter(nanos: i64) -> ScalarValue {
    ScalarValue::TimestampNanosecond(Some(nanos), Some("+00:00".into()))
}

/// The parameters locating search hits' rows, for `array_has($1..$3, ...)`: their event ids,
/// session ids and partitions (`source/month`).
pub fn hit_location_parameters(hits: &[crate::search::SearchHit]) -> Vec<ScalarValue> {
    let list = |value: fn(&crate::search::SearchHit) -> &str| {
        let values: Vec<&str> = hits.iter().map(value).collect();
        text_list_parameter(&values)
    };
    vec![
        list(|hit| hit.event_id.as_str()),
        list(|hit| hit.session_id.as_str()),
        partition_keys(hits),
    ]
}

/// The hits' partitions as `source/month`, for `array_has($n, concat(source, '/', month))`:
/// only the partitions that hold a hit are opened.
fn partition_keys(hits: &[crate::search::SearchHit]) -> ScalarValue {
    let keys: Vec<String> = hits
        .iter()
        .map(|hit| format!("{}/{}", hit.location.source, hit.location.month))
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    text_list_parameter(&keys)
}

/// A list-of-strings parameter, for `array_has($n, column)`.
pub fn text_list_parameter(values: &[&str]) -> ScalarValue {
    let scalars: Vec<ScalarValue> = values.iter().map(|value| text_parameter(value)).collect();
    ScalarValue::List(ScalarValue::new_list_nullable(
        &scalars,
        &datafusion::arrow::datatypes::DataType::Utf8,
    ))
}

/// One table's refresh of `previous`'s directory, run on the blocking pool (tens of
/// milliseconds of merging at a million documents).
fn merge_in_background(
    previous: &Arc<GenerationReaders>,
    changed: &Arc<ChangedRows>,
    rows: RowCollector,
    merge: fn(&Directory, &ChangedRows, RowCollector) -> Result<BucketedTable, DirectoryError>,
) -> impl std::future::Future<Output = Result<BucketedTable, CatalogError>> {
    let previous = Arc::clone(previous);
    let changed = Arc::clone(changed);
    let task = tokio::task::spawn_blocking(move || {
        let directory = previous.directory.get().ok_or_else(|| {
            CatalogError::DirectoryTask("the replaced generation has no directory".to_owned())
        })?;
        Ok(merge(directory, &changed, rows)?)
    });
    async move {
        task.await
            .map_err(|error| CatalogError::DirectoryTask(error.to_string()))?
    }
}

/// The machine's cores, read once: `available_parallelism` reads cgroup files on Linux, too
/// slow for every request.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
}
