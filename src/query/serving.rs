//! DataFusion set up for serving lookups: one [`RuntimeEnv`] for the server's life whose
//! metadata and statistics caches are keyed without the generation directory (a commit
//! hard-links unchanged files into `generations/gNNNNNN/`, so their footers, page indexes and
//! statistics stay cached), and the serving [`SessionConfig`] (filter pushdown, page index,
//! bloom filters, one partition).

use std::collections::HashMap as StdHashMap;
use std::sync::Arc;
use std::time::Duration;

use datafusion::common::{HashMap, TableReference};
use datafusion::error::Result as DataFusionResult;
use datafusion::execution::cache::cache_manager::{
    CacheManagerConfig, CachedFileMetadata, CachedFileMetadataEntry, FileMetadataCache,
    FileStatisticsCache,
};
use datafusion::execution::cache::default_cache::DefaultCache;
use datafusion::execution::cache::{Cache, CacheEntryInfo, CacheKey, CacheValue, TableScopedPath};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::prelude::SessionConfig;
use object_store::path::Path as ObjectPath;

use super::keyed_scan::{FileKeyCache, MIN_KEY_CACHE_BYTES};

/// Footers and page indexes of every file a server reads (about 64 bytes of statistics per
/// page of a lookup column, a few KiB of footer per file).
const METADATA_CACHE_BYTES: usize = 128 * 1024 * 1024;
/// Per-file statistics and orderings.
const STATISTICS_CACHE_BYTES: usize = 32 * 1024 * 1024;
/// Bytes read for a footer on a cache miss (the footers of esker's files are a few KiB).
const METADATA_SIZE_HINT: usize = 64 * 1024;
/// `IN` lists up to this long prune row groups and pages by min/max (`array_has($1, col)`
/// becomes `IN`). Longer lists (a search's 10–50 hit ids) prune by bloom filter only: their
/// min/max pruning expression is rebuilt and evaluated for every file opened and cost more
/// than it saved (release, 100k documents: the hit statement 21 → 18.5 ms for 10 hits; the
/// ids are random, so min/max rarely prunes).
const MAX_IN_LIST_SIZE: usize = 8;

/// What every serving context of one process shares, so that its caches survive commits:
/// DataFusion's runtime (file metadata and statistics caches) and the key runs of the files
/// the keyed tables read ([`super::keyed_scan`]).
#[derive(Debug, Clone)]
pub struct ServingRuntime {
    pub env: Arc<RuntimeEnv>,
    pub file_keys: Arc<FileKeyCache>,
}

/// The runtime every serving context of a server kept under `memory_limit` bytes shares: its
/// key-run cache may take a sixteenth of it ([`key_cache_bytes`]).
pub fn serving_runtime_within(memory_limit: u64) -> DataFusionResult<ServingRuntime> {
    Ok(ServingRuntime {
        env: serving_env()?,
        file_keys: Arc::new(FileKeyCache::holding(key_cache_bytes(memory_limit))),
    })
}

/// A sixteenth of `memory_limit` for key runs, between [`MIN_KEY_CACHE_BYTES`] and 512 MiB:
/// 128 MiB under the default 2 GiB, which holds the ~104 MB of runs of a 10M-document store.
pub fn key_cache_bytes(memory_limit: u64) -> usize {
    let share = usize::try_from(memory_limit / 16).unwrap_or(usize::MAX);
    share.clamp(MIN_KEY_CACHE_BYTES, MAX_KEY_CACHE_BYTES)
}

/// The most a server's key-run cache takes, whatever its memory limit.
const MAX_KEY_CACHE_BYTES: usize = 512 * 1024 * 1024;

fn serving_env() -> DataFusionResult<Arc<RuntimeEnv>> {
    let metadata: Arc<FileMetadataCache> =
        Arc::new(GenerationFree::<ObjectPath, CachedFileMetadataEntry>::new(
            "esker file metadata",
            METADATA_CACHE_BYTES,
        ));
    let statistics: Arc<FileStatisticsCache> =
        Arc::new(GenerationFree::<TableScopedPath, CachedFileMetadata>::new(
            "esker file statistics",
            STATISTICS_CACHE_BYTES,
        ));
    let caches = CacheManagerConfig::default()
        .with_file_metadata_cache(Some(metadata))
        .with_metadata_cache_limit(METADATA_CACHE_BYTES)
        .with_file_statistics_cache(Some(statistics))
        .with_file_statistics_cache_limit(STATISTICS_CACHE_BYTES);
    RuntimeEnvBuilder::new()
        .with_cache_manager(caches)
        .build_arc()
}

/// The configuration of serving contexts: every named query is a selective lookup, so filters
/// are pushed into the Parquet scan (late materialisation: the filter columns are decoded
/// first, then only the selected pages of the others), pruned by page index and bloom
/// filters, on one partition (requests run side by side instead).
pub fn serving_config() -> SessionConfig {
    let mut config = super::utc(SessionConfig::new())
        .with_information_schema(false)
        .with_target_partitions(1)
        .with_repartition_file_scans(false);
    let parquet = &mut config.options_mut().execution.parquet;
    parquet.pushdown_filters = true;
    parquet.reorder_filters = true;
    parquet.enable_page_index = true;
    parquet.bloom_filter_on_read = true;
    parquet.pruning = true;
    parquet.max_in_list_size = MAX_IN_LIST_SIZE;
    parquet.metadata_size_hint = Some(METADATA_SIZE_HINT);
    // The predicate cache decodes whole row groups of the filter columns to reuse them in
    // the output; a lookup selects a few rows, so it cost ~3 of the 12 ms of ten search hits
    // at 1M documents (PERFORMANCE.md, "Search at 1M").
    parquet.max_predicate_cache_size = Some(0);
    config
}

/// A cache key whose generation directory can be left out.
pub(crate) trait GenerationKey: CacheKey {
    fn without_generation(&self) -> Self;
}

impl GenerationKey for ObjectPath {
    fn without_generation(&self) -> ObjectPath {
        match strip_generation(self.as_ref()) {
            Some(stripped) => ObjectPath::from(stripped),
            None => self.clone(),
        }
    }
}

impl GenerationKey for TableScopedPath {
    fn without_generation(&self) -> TableScopedPath {
        TableScopedPath {
            table: self.table.clone(),
            path: self.path.without_generation(),
        }
    }
}

/// `…/generations/g000042/events/…` -> `…/generations/events/…`; `None` when `path` has no
/// generation directory.
pub fn strip_generation(path: &str) -> Option<String> {
    const MARK: &str = "generations/g";
    let start = path.rfind(MARK)?;
    let digits_start = start + MARK.len();
    let digits = path[digits_start..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    let end = digits_start + digits;
    if digits == 0 || path.as_bytes().get(end) != Some(&b'/') {
        return None;
    }
    Some(format!("{}generations{}", &path[..start], &path[end..]))
}

/// DataFusion's LRU cache with keys stripped of their generation directory. An entry is still
/// checked against the file's size and modification time by its readers, which a hard link
/// shares and a rewritten or copied file does not.
pub(crate) struct GenerationFree<K: GenerationKey, V: CacheValue> {
    inner: DefaultCache<K, V>,
}

impl<K: GenerationKey, V: CacheValue> GenerationFree<K, V> {
    pub(crate) fn new(name: &str, limit: usize) -> Self {
        GenerationFree {
            inner: DefaultCache::new(limit).with_name(name),
        }
    }

    /// The bytes its entries take.
    pub(crate) fn memory_used(&self) -> usize {
        self.inner.memory_used()
    }
}

impl<K: GenerationKey, V: CacheValue> Cache<K, V> for GenerationFree<K, V> {
    fn get(&self, key: &K) -> Option<V> {
        self.inner.get(&key.without_generation())
    }

    fn put(&self, key: &K, value: V) -> Option<V> {
        self.inner.put(&key.without_generation(), value)
    }

    fn remove(&self, key: &K) -> Option<V> {
        self.inner.remove(&key.without_generation())
    }

    fn contains_key(&self, key: &K) -> bool {
        self.inner.contains_key(&key.without_generation())
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn clear(&self) {
        self.inner.clear()
    }

    fn name(&self) -> String {
        self.inner.name()
    }

    fn cache_limit(&self) -> usize {
        self.inner.cache_limit()
    }

    fn update_cache_limit(&self, limit: usize) {
        self.inner.update_cache_limit(limit)
    }

    fn cache_ttl(&self) -> Option<Duration> {
        self.inner.cache_ttl()
    }

    fn update_cache_ttl(&self, ttl: Option<Duration>) {
        self.inner.update_cache_ttl(ttl)
    }

    fn drop_table_entries(&self, table_ref: &TableReference) -> DataFusionResult<()> {
        self.inner.drop_table_entries(table_ref)
    }

    fn list_entries(&self) -> HashMap<K, CacheEntryInfo<V>> {
        self.inner.list_entries()
    }
}

/// How often each cached file's metadata was reused, by path without generation: what the
/// cache-across-commits test reads.
pub fn metadata_hits(runtime: &RuntimeEnv) -> StdHashMap<String, usize> {
    runtime
        .cache_manager
        .get_file_metadata_cache()
        .list_entries()
        .into_iter()
        .map(|(path, entry)| (path.to_string(), entry.hits))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{MAX_KEY_CACHE_BYTES, MIN_KEY_CACHE_BYTES, key_cache_bytes, strip_generation};

    #[test]
    fn the_key_cache_takes_a_sixteenth_of_the_memory_limit_within_bounds() {
        assert_eq!(key_cache_bytes(2 << 30), 128 << 20, "the default limit");
        assert_eq!(key_cache_bytes(256 << 20), MIN_KEY_CACHE_BYTES);
        assert_eq!(key_cache_bytes(64 << 30), MAX_KEY_CACHE_BYTES);
        assert_eq!(key_cache_bytes(u64::MAX), MAX_KEY_CACHE_BYTES);
    }

    #[test]
    fn the_generation_directory_is_left_out_of_cache_keys() {
        assert_eq!(
            strip_generation("data/generations/g000042/events/source=codex/part-g000041.parquet")
                .as_deref(),
            Some("data/generations/events/source=codex/part-g000041.parquet")
        );
        assert_eq!(strip_generation("data/generations/events/x.parquet"), None);
        assert_eq!(strip_generation("data/generations/g12x/x.parquet"), None);
        assert_eq!(strip_generation("elsewhere/x.parquet"), None);
    }
}
