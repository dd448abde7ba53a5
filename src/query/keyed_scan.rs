//! Scans that open only the files, and read only the rows, holding the keys a query names.
//!
//! A serving table (`events`, `turns`, `file_touches`) is a `ListingTable` wrapped in a
//! [`KeyedScan`]. When a query's filters pin the table's key column (`session_id`,
//! `file_name`) to a few values, the scan keeps only the files that hold one of them and
//! attaches a [`ParquetRowSelection`] naming their rows, so DataFusion neither opens the other
//! files of a partition (about a millisecond each, even when their bloom filters reject the
//! key) nor decodes pages outside the key's rows. The tables' files are sorted by their key,
//! so a key's rows are one run per file: which run belongs to which key is read once per file
//! (one column) and kept in a process-wide LRU cache ([`FileKeyCache`]) keyed by the file's
//! path without its generation directory, like the metadata cache, so files a commit
//! hard-links into the next generation stay known. Filters stay where DataFusion put them:
//! the selection narrows what is read, the filters still decide what matches. The files
//! themselves are listed once per generation ([`ListedFiles`]), and partition filters are
//! evaluated once per partition rather than once per file.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::hash::BuildHasher;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::catalog::{ScanArgs, ScanResult, Session, TableProvider};
use datafusion::common::{Constraints, ScalarValue};
use datafusion::datasource::TableType;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::parquet::ParquetRowSelection;
use datafusion::datasource::physical_plan::parquet::metadata::CachedParquetMetaData;
use datafusion::datasource::physical_plan::{FileSource, ParquetSource};
use datafusion::error::{DataFusionError, Result as DataFusionResult};
use datafusion::execution::cache::cache_manager::{CachedFileMetadataEntry, FileMetadataCache};
use datafusion::execution::cache::{Cache, CacheValue};
use datafusion::logical_expr::expr::InList;
use datafusion::logical_expr::{BinaryExpr, Expr, Operator, TableProviderFilterPushDown};
use datafusion::parquet::arrow::ProjectionMask;
use datafusion::parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelector,
};
use datafusion::parquet::file::metadata::{
    PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader,
};
use datafusion::physical_plan::ExecutionPlan;
use object_store::path::Path as ObjectPath;
use tokio::sync::OnceCell;

use super::listed_files::ListedFiles;
use super::page_index_reader::WithPageIndex;
use super::serving::GenerationFree;
use super::session_bucket::SESSION_BUCKET;
use crate::store::commit::{bucket_of_file, turn_bucket};

/// Bytes of key runs kept for the server's life, at least (32 bytes a run: a session is a run
/// in each of `events`, `turns` and `sessions`, ~10 MB at 1M documents; at 10M, 3.25M runs,
/// ~104 MB, which 64 MB could not hold: lookups in random files read key columns again;
/// [`super::serving::serving_runtime_within`] gives a server a share of its memory limit).
pub const MIN_KEY_CACHE_BYTES: usize = 64 * 1024 * 1024;
/// More keys than this in one filter and the scan is left as DataFusion planned it.
const MAX_KEYS: usize = 256;

/// The hash a key is known by (a collision only keeps a file or a run that holds no match).
fn key_hash(key: &str) -> u64 {
    foldhash::fast::FixedState::with_seed(0x0065_736b_6572).hash_one(key)
}

/// Where each key's rows are in one Parquet file: `[first, end)` row numbers of the file.
#[derive(Debug, Default)]
pub struct FileKeys {
    rows: u64,
    runs: HashMap<u64, (u64, u64)>,
}

/// One cached [`FileKeys`], valid for a file of exactly this size.
#[derive(Debug, Clone)]
pub struct FileKeysEntry {
    file_size: u64,
    keys: Arc<FileKeys>,
}

impl CacheValue for FileKeysEntry {
    fn size(&self) -> usize {
        std::mem::size_of::<FileKeys>() + self.keys.runs.capacity() * 32
    }
}

/// The process-wide cache of file key runs, shared by every generation's serving context.
pub struct FileKeyCache {
    entries: GenerationFree<ObjectPath, FileKeysEntry>,
    /// Held by the read-ahead ([`warm_files`]) while it reads.
    reading_ahead: std::sync::Mutex<()>,
}

impl fmt::Debug for FileKeyCache {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "FileKeyCache({} files)", self.entries.len())
    }
}

impl FileKeyCache {
    /// A cache keeping at most `bytes` of key runs (the least recently used file goes first).
    pub fn holding(bytes: usize) -> FileKeyCache {
        FileKeyCache {
            entries: GenerationFree::new("esker file keys", bytes),
            reading_ahead: std::sync::Mutex::new(()),
        }
    }

    /// The key runs of `file` (a local file: object store paths are absolute paths without
    /// their leading `/`), read now if not cached. `None` when it cannot be read, in which case
    /// the scan reads the file as DataFusion planned.
    fn keys_of(&self, file: &PartitionedFile, key_column: &str) -> Option<Arc<FileKeys>> {
        if let Some(keys) = self.cached(file) {
            return Some(keys);
        }
        let path = format!("/{}", file.object_meta.location);
        match read_file_keys(&path, key_column) {
            Ok(keys) => Some(self.insert(file, keys)),
            Err(error) => {
                tracing::debug!(%error, path, "file keys not read; the file is scanned whole");
                None
            }
        }
    }

    /// Caches `keys` as `file`'s key runs.
    fn insert(&self, file: &PartitionedFile, keys: FileKeys) -> Arc<FileKeys> {
        let keys = Arc::new(keys);
        self.entries.put(
            &file.object_meta.location,
            FileKeysEntry {
                file_size: file.object_meta.size,
                keys: Arc::clone(&keys),
            },
        );
        keys
    }

    /// `file`'s key runs, when cached for a file of its size.
    fn cached(&self, file: &PartitionedFile) -> Option<Arc<FileKeys>> {
        self.entries
            .get(&file.object_meta.location)
            .filter(|entry| entry.file_size == file.object_meta.size)
            .map(|entry| entry.keys)
    }

    /// Whether reading ahead may still add runs ([`WARM_KEYS_UP_TO`] of the cache's bytes).
    fn has_room(&self) -> bool {
        let (numerator, denominator) = WARM_KEYS_UP_TO;
        self.entries.memory_used() < self.entries.cache_limit() / denominator * numerator
    }

    /// How many files' keys are cached (what tests read).
    pub fn cached_files(&self) -> usize {
        self.entries.len()
    }
}

/// Reads `key_column` of a Parquet file and records each key's run of rows.
fn read_file_keys(path: &str, key_column: &str) -> Result<FileKeys, String> {
    let file = File::open(path).map_err(|error| error.to_string())?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|error| error.to_string())?;
    key_runs(builder, key_column)
}

/// Each key's run of rows in `key_column` of the file `builder` reads.
fn key_runs(
    builder: ParquetRecordBatchReaderBuilder<File>,
    key_column: &str,
) -> Result<FileKeys, String> {
    let leaf = builder
        .parquet_schema()
        .columns()
        .iter()
        .position(|column| column.name() == key_column)
        .ok_or_else(|| format!("no column {key_column}"))?;
    let mask = ProjectionMask::leaves(builder.parquet_schema(), [leaf]);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(8192)
        .build()
        .map_err(|error| error.to_string())?;
    let mut keys = FileKeys::default();
    let mut previous: Option<(String, u64)> = None;
    for batch in reader {
        let batch = batch.map_err(|error| error.to_string())?;
        let column = cast(batch.column(0), &DataType::Utf8).map_err(|error| error.to_string())?;
        let strings = column.as_string::<i32>();
        for index in 0..strings.len() {
            let row = keys.rows;
            keys.rows += 1;
            if strings.is_null(index) {
                continue;
            }
            let key = strings.value(index);
            let hash = match &previous {
                Some((last, hash)) if last == key => *hash,
                _ => {
                    let hash = key_hash(key);
                    previous = Some((key.to_string(), hash));
                    hash
                }
            };
            keys.runs
                .entry(hash)
                .and_modify(|run| run.1 = row + 1)
                .or_insert((row, row + 1));
        }
    }
    Ok(keys)
}

/// What reading ahead ([`warm_files`]) cached: the files whose key runs it read, and the
/// footers (with their page index) it put in the metadata cache, and their bytes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Warmed {
    pub key_files: usize,
    pub footers: usize,
    pub footer_bytes: usize,
}

impl std::ops::AddAssign for Warmed {
    fn add_assign(&mut self, other: Warmed) {
        self.key_files += other.key_files;
        self.footers += other.footers;
        self.footer_bytes += other.footer_bytes;
    }
}

/// The key cache is full enough that reading ahead stops at seven eighths of its bytes: what
/// is left is for files a request meets first (evicting a file read ahead would waste it).
const WARM_KEYS_UP_TO: (usize, usize) = (7, 8);

/// Reads ahead, for each of `files` (with the key column of its table), the key runs and the
/// footer with its page index that a lookup landing in it would read first, unless cached
/// already: key runs until `keys` is seven eighths full, footers until `footer_budget` bytes
/// were cached. A server's first lookups then plan and open files from memory (at 10M
/// documents, planning was up to half of a lookup's time, from first touches). A file that
/// cannot be read (a generation removed meanwhile) is passed over, and reading stops once
/// `wanted` says no (the generation is no longer in use). One read-ahead runs at a time per
/// cache; a second waits and then finds the first one's files cached. Blocking: run it on the
/// blocking pool.
pub fn warm_files(
    files: &[(&'static str, PartitionedFile)],
    keys: &FileKeyCache,
    footers: &FileMetadataCache,
    footer_budget: usize,
    wanted: &dyn Fn() -> bool,
) -> Warmed {
    let _one_at_a_time = keys
        .reading_ahead
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut warmed = Warmed::default();
    for (key_column, file) in files {
        if !wanted() {
            break;
        }
        let want_keys = keys.has_room() && keys.cached(file).is_none();
        let want_footer = warmed.footer_bytes < footer_budget;
        if !want_keys && !want_footer {
            if !keys.has_room() {
                break;
            }
            continue;
        }
        match warm_file(file, key_column, keys, footers, want_keys, want_footer) {
            Ok(read) => warmed += read,
            Err(error) => {
                tracing::debug!(%error, file = %file.object_meta.location, "not read ahead");
            }
        }
    }
    warmed
}

/// Reads `file`'s footer (from the metadata cache when it holds it with its page index) and,
/// as asked, caches its key runs and the footer.
fn warm_file(
    file: &PartitionedFile,
    key_column: &str,
    keys: &FileKeyCache,
    footers: &FileMetadataCache,
    want_keys: bool,
    want_footer: bool,
) -> Result<Warmed, String> {
    let location = &file.object_meta.location;
    let cached = cached_footer(footers, file);
    let want_footer = want_footer && cached.is_none();
    if !want_keys && !want_footer {
        return Ok(Warmed::default());
    }
    let handle = File::open(format!("/{location}")).map_err(|error| error.to_string())?;
    let metadata = match cached {
        Some(metadata) => metadata,
        None => Arc::new(
            ParquetMetaDataReader::new()
                .with_page_index_policy(PageIndexPolicy::Optional)
                .parse_and_finish(&handle)
                .map_err(|error| error.to_string())?,
        ),
    };
    let mut warmed = Warmed::default();
    if want_footer {
        let entry = CachedFileMetadataEntry::new(
            file.object_meta.clone(),
            Arc::new(CachedParquetMetaData::new(Arc::clone(&metadata))),
        );
        // A request may have cached it meanwhile: its entry (and hit count) stays.
        if !footers.contains_key(location) {
            warmed.footers = 1;
            warmed.footer_bytes = entry.size();
            footers.put(location, entry);
        }
    }
    if want_keys {
        let reader_metadata = ArrowReaderMetadata::try_new(metadata, ArrowReaderOptions::new())
            .map_err(|error| error.to_string())?;
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(handle, reader_metadata);
        keys.insert(file, key_runs(builder, key_column)?);
        warmed.key_files = 1;
    }
    Ok(warmed)
}

/// `file`'s footer as the metadata cache holds it for this very file, when it has the page
/// index (a footer cached without it is read again).
fn cached_footer(
    footers: &FileMetadataCache,
    file: &PartitionedFile,
) -> Option<Arc<ParquetMetaData>> {
    let entry = footers.get(&file.object_meta.location)?;
    if !entry.is_valid_for(&file.object_meta) {
        return None;
    }
    let metadata = entry
        .file_metadata
        .as_any()
        .downcast_ref::<CachedParquetMetaData>()?
        .parquet_metadata();
    (metadata.column_index().is_some() && metadata.offset_index().is_some())
        .then(|| Arc::clone(metadata))
}

/// The rows of `keys` (hashes) in a file: `None` when the file holds none of them.
fn selection_for(file_keys: &FileKeys, keys: &[u64]) -> Option<RowSelection> {
    let mut runs: Vec<(u64, u64)> = keys
        .iter()
        .filter_map(|hash| file_keys.runs.get(hash).copied())
        .collect();
    if runs.is_empty() {
        return None;
    }
    runs.sort_unstable();
    let mut selectors = Vec::with_capacity(runs.len() * 2 + 1);
    let mut position = 0u64;
    for (start, end) in runs {
        let start = start.max(position);
        if end <= start {
            continue;
        }
        if start > position {
            selectors.push(RowSelector::skip((start - position) as usize));
        }
        selectors.push(RowSelector::select((end - start) as usize));
        position = end;
    }
    if position < file_keys.rows {
        selectors.push(RowSelector::skip((file_keys.rows - position) as usize));
    }
    Some(RowSelection::from(selectors))
}

/// The values `filters` pin `key_column` to (`key = 'x'`, `key = 'x' OR key = 'y'`,
/// `key IN (...)`, `array_has([...], key)`), or `None` when no filter pins it to at most [`MAX_KEYS`] values.
fn pinned_keys(filters: &[Expr], key_column: &str) -> Option<Vec<String>> {
    filters
        .iter()
        .filter_map(|filter| keys_of_filter(filter, key_column))
        .min_by_key(Vec::len)
        .filter(|keys| keys.len() <= MAX_KEYS)
}

fn keys_of_filter(filter: &Expr, key_column: &str) -> Option<Vec<String>> {
    let is_key = |expr: &Expr| matches!(expr, Expr::Column(column) if column.name == key_column);
    pinned_values(filter, &is_key, &string_of)
}

/// The literal values `filter` pins the expression `is_target` recognizes to (`target = v`,
/// `v = target`, an `OR` of those, `target IN (...)`, `array_has([...], target)`), each read
/// by `value`; `None` when it pins it to no list of literals.
fn pinned_values<T>(
    filter: &Expr,
    is_target: &dyn Fn(&Expr) -> bool,
    value: &dyn Fn(&ScalarValue) -> Option<T>,
) -> Option<Vec<T>> {
    let literals = |items: &[Expr]| -> Option<Vec<T>> {
        items
            .iter()
            .map(|item| match item {
                Expr::Literal(literal, _) => value(literal),
                _ => None,
            })
            .collect()
    };
    match filter {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Or,
            right,
        }) => {
            let mut values = pinned_values(left, is_target, value)?;
            values.extend(pinned_values(right, is_target, value)?);
            Some(values)
        }
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Eq,
            right,
        }) => match (left.as_ref(), right.as_ref()) {
            (target, Expr::Literal(literal, _)) | (Expr::Literal(literal, _), target)
                if is_target(target) =>
            {
                Some(vec![value(literal)?])
            }
            _ => None,
        },
        Expr::InList(InList {
            expr,
            list,
            negated: false,
        }) if is_target(expr) => literals(list),
        Expr::ScalarFunction(function)
            if function.name() == "array_has" && function.args.len() == 2 =>
        {
            match (&function.args[0], &function.args[1]) {
                (Expr::Literal(ScalarValue::List(list), _), target) if is_target(target) => {
                    let elements = list.values();
                    (0..elements.len())
                        .map(|index| value(&ScalarValue::try_from_array(elements, index).ok()?))
                        .collect()
                }
                (Expr::ScalarFunction(array), target)
                    if is_target(target) && array.name() == "make_array" =>
                {
                    literals(&array.args)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The buckets `filters` pin the table's rows to by [`SESSION_BUCKET`] of `key_column`
/// (`session_bucket(key) = 3`, `session_bucket(key) IN (...)`, `array_has([...],
/// session_bucket(key))`), or `None` when no filter does.
fn pinned_buckets(filters: &[Expr], key_column: &str) -> Option<Vec<u64>> {
    filters
        .iter()
        .filter_map(|filter| buckets_of_filter(filter, key_column))
        .min_by_key(Vec::len)
}

fn buckets_of_filter(filter: &Expr, key_column: &str) -> Option<Vec<u64>> {
    let is_bucket = |expr: &Expr| match expr {
        Expr::ScalarFunction(function) if function.name() == SESSION_BUCKET => {
            matches!(function.args.as_slice(), [Expr::Column(column)] if column.name == key_column)
        }
        _ => false,
    };
    pinned_values(filter, &is_bucket, &bucket_number)
}

/// A bucket number literal (any integer type).
fn bucket_number(value: &ScalarValue) -> Option<u64> {
    match value.cast_to(&DataType::Int64).ok()? {
        ScalarValue::Int64(Some(number)) => u64::try_from(number).ok(),
        _ => None,
    }
}

fn string_of(value: &ScalarValue) -> Option<String> {
    match value {
        ScalarValue::Utf8(Some(text))
        | ScalarValue::Utf8View(Some(text))
        | ScalarValue::LargeUtf8(Some(text)) => Some(text.clone()),
        ScalarValue::Dictionary(_, inner) => string_of(inner),
        _ => None,
    }
}

/// A table whose scans read only the files and rows of the keys their filters name.
pub struct KeyedScan {
    inner: Arc<dyn TableProvider>,
    key_column: &'static str,
    /// Whether the table's files are buckets of its key (`part-bNN-…`, session ids hashed by
    /// `store::commit::turn_bucket`): a file of another bucket is skipped by its name, without
    /// reading (or caching) its keys.
    bucketed_by_key: bool,
    cache: Arc<FileKeyCache>,
    /// The table's files, listed at its first scan: a serving context reads one generation,
    /// whose files never change.
    listed: OnceCell<Option<Arc<ListedFiles>>>,
}

impl fmt::Debug for KeyedScan {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "KeyedScan({}, {:?})",
            self.key_column, self.inner
        )
    }
}

impl KeyedScan {
    pub fn new(
        inner: Arc<dyn TableProvider>,
        key_column: &'static str,
        bucketed_by_key: bool,
        cache: Arc<FileKeyCache>,
    ) -> KeyedScan {
        KeyedScan {
            inner,
            key_column,
            bucketed_by_key,
            cache,
            listed: OnceCell::new(),
        }
    }

    /// This generation's files, listed once (`None` when the table is not a listing table
    /// with files: it then scans as DataFusion plans it).
    async fn listed(&self, state: &dyn Session) -> DataFusionResult<Option<&Arc<ListedFiles>>> {
        let listed = self
            .listed
            .get_or_try_init(|| async {
                Ok::<_, DataFusionError>(ListedFiles::list(&self.inner, state).await?.map(Arc::new))
            })
            .await?;
        Ok(listed.as_ref())
    }

    /// Every file of this generation's table, each with the table's key column (listed now if
    /// no scan listed them yet): what [`warm_files`] reads ahead.
    pub async fn files(
        &self,
        state: &dyn Session,
    ) -> DataFusionResult<Vec<(&'static str, PartitionedFile)>> {
        Ok(match self.listed(state).await? {
            Some(listed) => listed
                .files_matching(state, &[])?
                .map(|file| (self.key_column, file.clone()))
                .collect(),
            None => Vec::new(),
        })
    }

    /// The files among `files` that may hold one of `keys`, each with a selection of its
    /// rows of them.
    fn files_of_keys<'a>(
        &self,
        files: impl Iterator<Item = &'a PartitionedFile>,
        keys: &[String],
    ) -> Vec<PartitionedFile> {
        let hashes: Vec<u64> = keys.iter().map(|key| key_hash(key)).collect();
        let buckets: Option<Vec<u64>> = self
            .bucketed_by_key
            .then(|| keys.iter().map(|key| turn_bucket(key)).collect());
        files
            .filter(|file| in_buckets(file, buckets.as_deref()))
            .filter_map(|file| self.narrowed_file(file, &hashes))
            .collect()
    }

    /// `file` with a selection of the rows of `hashes`, `None` when it holds none of them, or
    /// `file` unchanged when its keys are unknown.
    fn narrowed_file(&self, file: &PartitionedFile, hashes: &[u64]) -> Option<PartitionedFile> {
        let Some(file_keys) = self.cache.keys_of(file, self.key_column) else {
            return Some(file.clone());
        };
        let selection = selection_for(&file_keys, hashes)?;
        Some(
            file.clone()
                .with_extension(ParquetRowSelection::new(selection)),
        )
    }
}

/// Whether `file` may hold a key of `buckets`: always for an unbucketed table or a file whose
/// name names no bucket (a pulled team file, an older layout).
fn in_buckets(file: &PartitionedFile, buckets: Option<&[u64]>) -> bool {
    let Some(buckets) = buckets else {
        return true;
    };
    let location = file.object_meta.location.as_ref();
    bucket_of_file(std::path::Path::new(location)).is_none_or(|bucket| buckets.contains(&bucket))
}

/// `source` without the pruning a row selection makes redundant: row-group statistics, bloom
/// filters and page statistics would only confirm the rows already selected, and evaluating
/// them costs about as much as reading those rows (release, 1M documents, a search's hit
/// statement over 8 files: 17.6 → 12.3 ms). Its readers still load each file's page index
/// ([`WithPageIndex`]): the offset index is what lets the selection fetch and decode only
/// the pages holding its rows instead of whole column chunks.
fn without_pruning(source: &Arc<dyn FileSource>) -> Arc<dyn FileSource> {
    match source.downcast_ref::<ParquetSource>() {
        Some(parquet) => {
            let mut options = parquet.table_parquet_options().clone();
            options.global.pruning = false;
            options.global.bloom_filter_on_read = false;
            options.global.enable_page_index = false;
            let mut located = parquet.clone().with_table_parquet_options(options);
            if let Some(factory) = parquet.parquet_file_reader_factory() {
                located = located.with_parquet_file_reader_factory(Arc::new(WithPageIndex::new(
                    Arc::clone(factory),
                )));
            }
            Arc::new(located)
        }
        None => Arc::clone(source),
    }
}

#[async_trait]
impl TableProvider for KeyedScan {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.inner.constraints()
    }

    fn table_type(&self) -> TableType {
        self.inner.table_type()
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> DataFusionResult<Arc<dyn ExecutionPlan>> {
        let args = ScanArgs::default()
            .with_projection(projection.map(|columns| columns.as_slice()))
            .with_filters(Some(filters))
            .with_limit(limit);
        Ok(self.scan_with_args(state, args).await?.into_inner())
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: ScanArgs<'a>,
    ) -> DataFusionResult<ScanResult> {
        let filters = args.filters().unwrap_or_default();
        let keys = pinned_keys(filters, self.key_column);
        let buckets = self
            .bucketed_by_key
            .then(|| pinned_buckets(filters, self.key_column))
            .flatten();
        if let Some(listed) = self.listed(state).await? {
            let partition_filters = listed.partition_filters(filters);
            if keys.is_some() || buckets.is_some() || !partition_filters.is_empty() {
                let files = listed.files_matching(state, &partition_filters)?;
                let source = listed.fresh_source();
                let (files, source) = match (&keys, &buckets) {
                    (Some(keys), _) => (self.files_of_keys(files, keys), without_pruning(&source)),
                    (None, Some(buckets)) => (
                        files
                            .filter(|file| in_buckets(file, Some(buckets)))
                            .cloned()
                            .collect(),
                        source,
                    ),
                    (None, None) => (files.cloned().collect(), source),
                };
                let plan = listed.scan(state, files, args.projection(), args.limit(), source)?;
                return Ok(ScanResult::new(plan));
            }
        }
        self.inner.scan_with_args(state, args).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> DataFusionResult<Vec<TableProviderFilterPushDown>> {
        self.inner.supports_filters_pushdown(filters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(runs: &[(&str, u64, u64)], rows: u64) -> FileKeys {
        FileKeys {
            rows,
            runs: runs
                .iter()
                .map(|(key, start, end)| (key_hash(key), (*start, *end)))
                .collect(),
        }
    }

    #[test]
    fn a_selection_covers_the_runs_of_the_keys_and_every_row_of_the_file() {
        let file = keys(&[("a", 0, 3), ("b", 3, 10), ("c", 10, 12)], 20);
        let selection = selection_for(&file, &[key_hash("c"), key_hash("a")]).unwrap();
        let selectors: Vec<RowSelector> = selection.into();
        assert_eq!(
            selectors,
            vec![
                RowSelector::select(3),
                RowSelector::skip(7),
                RowSelector::select(2),
                RowSelector::skip(8),
            ]
        );
        assert!(selection_for(&file, &[key_hash("zzz")]).is_none());
    }

    #[test]
    fn buckets_are_read_from_the_session_bucket_function_of_the_key() {
        use datafusion::logical_expr::{col, lit};
        let bucket_of = |column: &str| {
            super::super::session_bucket::session_bucket_udf().call(vec![col(column)])
        };
        let list = ScalarValue::List(ScalarValue::new_list_nullable(
            &[ScalarValue::Int64(Some(3)), ScalarValue::Int64(Some(9))],
            &DataType::Int64,
        ));
        let array_has = datafusion::functions_nested::expr_fn::array_has(
            Expr::Literal(list, None),
            bucket_of("session_id"),
        );
        assert_eq!(pinned_buckets(&[array_has], "session_id"), Some(vec![3, 9]));
        assert_eq!(
            pinned_buckets(
                &[bucket_of("session_id").in_list(vec![lit(1i64), lit(2i32)], false)],
                "session_id"
            ),
            Some(vec![1, 2])
        );
        let either = bucket_of("session_id")
            .eq(lit(4i64))
            .or(lit(5i64).eq(bucket_of("session_id")));
        assert_eq!(pinned_buckets(&[either], "session_id"), Some(vec![4, 5]));
        assert_eq!(
            pinned_buckets(&[bucket_of("file_name").eq(lit(4i64))], "session_id"),
            None,
            "the bucket of another column"
        );
        assert_eq!(
            pinned_buckets(&[bucket_of("session_id").gt(lit(4i64))], "session_id"),
            None
        );
        assert_eq!(
            pinned_buckets(
                &[bucket_of("session_id").in_list(vec![lit(1i64)], true)],
                "session_id"
            ),
            None
        );
    }

    #[test]
    fn keys_are_read_from_equality_in_lists_and_array_has() {
        use datafusion::logical_expr::{col, lit};
        let filters = vec![
            col("session_id").in_list(vec![lit("s1"), lit("s2")], false),
            col("seq").eq(lit(4i64)),
        ];
        assert_eq!(
            pinned_keys(&filters, "session_id"),
            Some(vec!["s1".to_string(), "s2".to_string()])
        );
        assert_eq!(
            pinned_keys(&[lit("s9").eq(col("session_id"))], "session_id"),
            Some(vec!["s9".to_string()])
        );
        let either = col("session_id")
            .eq(lit("s3"))
            .or(col("session_id").eq(lit("s4")));
        assert_eq!(
            pinned_keys(&[either], "session_id"),
            Some(vec!["s3".to_string(), "s4".to_string()])
        );
        let not_only_keys = col("session_id").eq(lit("s3")).or(col("seq").eq(lit(1i64)));
        assert_eq!(pinned_keys(&[not_only_keys], "session_id"), None);
        let negated = col("session_id").in_list(vec![lit("s1")], true);
        assert_eq!(pinned_keys(&[negated], "session_id"), None);
        assert_eq!(pinned_keys(&filters, "file_name"), None);
    }

    /// A Parquet file in `dir` whose `session_id` column holds runs of `keys`, and the
    /// file as a listing would give it.
    fn keyed_parquet_file(dir: &std::path::Path, keys: &[(&str, usize)]) -> PartitionedFile {
        use datafusion::arrow::array::StringArray;
        use datafusion::arrow::datatypes::{Field, Schema};
        use datafusion::arrow::record_batch::RecordBatch;
        use datafusion::parquet::arrow::ArrowWriter;
        use datafusion::parquet::file::properties::WriterProperties;
        let values: Vec<&str> = keys
            .iter()
            .flat_map(|(key, rows)| std::iter::repeat_n(*key, *rows))
            .collect();
        let schema = Arc::new(Schema::new(vec![Field::new(
            "session_id",
            DataType::Utf8,
            false,
        )]));
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![Arc::new(StringArray::from(values))],
        )
        .unwrap();
        let path = dir.join("part-0.parquet");
        let properties = WriterProperties::builder()
            .set_data_page_row_count_limit(4)
            .set_write_batch_size(4)
            .build();
        let mut writer =
            ArrowWriter::try_new(File::create(&path).unwrap(), schema, Some(properties)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let size = std::fs::metadata(&path).unwrap().len();
        let location = path.to_str().unwrap().trim_start_matches('/').to_string();
        PartitionedFile::new(location, size)
    }

    #[test]
    fn reading_ahead_caches_key_runs_and_footers_once_and_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let file = keyed_parquet_file(dir.path(), &[("a", 3), ("b", 7), ("c", 2)]);
        let files = [("session_id", file.clone())];
        let footers: GenerationFree<ObjectPath, CachedFileMetadataEntry> =
            GenerationFree::new("footers", 1 << 20);
        let always = || true;

        // No room: a cache of no bytes, a footer budget of none, or a generation no longer
        // wanted reads nothing.
        let none = FileKeyCache::holding(0);
        assert_eq!(
            warm_files(&files, &none, &footers, 0, &always),
            Warmed::default()
        );
        let keys = FileKeyCache::holding(1 << 20);
        assert_eq!(
            warm_files(&files, &keys, &footers, 1 << 20, &|| false),
            Warmed::default()
        );
        assert_eq!(keys.cached_files(), 0);
        assert!(footers.is_empty());

        let warmed = warm_files(&files, &keys, &footers, 1 << 20, &always);
        assert_eq!((warmed.key_files, warmed.footers), (1, 1));
        assert!(warmed.footer_bytes > 0);
        // The runs read ahead are those a lookup reads, and the footer has its page index.
        let cached = keys.entries.get(&file.object_meta.location).unwrap().keys;
        let read =
            read_file_keys(&format!("/{}", file.object_meta.location), "session_id").unwrap();
        assert_eq!((cached.rows, &cached.runs), (read.rows, &read.runs));
        assert_eq!(cached.runs[&key_hash("b")], (3, 10));
        let footer = cached_footer(&footers, &file).expect("footer with its page index");
        assert!(footer.offset_index().unwrap()[0][0].page_locations().len() > 1);

        // Both cached: a second read-ahead reads nothing.
        assert_eq!(
            warm_files(&files, &keys, &footers, 1 << 20, &always),
            Warmed::default()
        );
        // Footer budget spent: key runs alone.
        let fresh_keys = FileKeyCache::holding(1 << 20);
        let no_footers: GenerationFree<ObjectPath, CachedFileMetadataEntry> =
            GenerationFree::new("footers", 1 << 20);
        let warmed = warm_files(&files, &fresh_keys, &no_footers, 0, &always);
        assert_eq!((warmed.key_files, warmed.footers), (1, 0));
        assert!(no_footers.is_empty());
    }
}
