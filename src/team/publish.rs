//! `esker publish URL`: uploads the current generation's Parquet files under content-hash
//! names (only those not already there), then replaces the machine's manifest, then removes
//! the machine's files the new manifest no longer names.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::TryStreamExt;
use object_store::ObjectStoreExt;
use object_store::buffered::BufWriter;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use datafusion::arrow::datatypes::TimeUnit;
use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};

use super::TeamError;
use super::delta::{self, TableFile};
use super::manifest::{MANIFEST_FORMAT, Manifest, ManifestFile, RetiredFile, read_manifest};
use super::remote::Remote;
use super::timestamps::rewrite_timestamps;
use crate::store::faults::crash_point;
use crate::store::{FORMAT_VERSION, Store, TABLES};

/// Crash point reached after each uploaded file (`ESKER_CRASH_AT=publish-after-upload[:N]`).
pub const CRASH_AFTER_UPLOAD: &str = "publish-after-upload";
/// Hex digits of SHA-256 in a content-addressed file name (128 bits).
const HASH_HEX: usize = 32;
/// Cache of content hashes by (device, inode, size, mtime): generations share files as hard
/// links, so a publish after a commit hashes only the files the commit wrote.
const HASH_CACHE_FILE: &str = "publish_hashes.json";
/// How often `--watch` looks for a new generation.
pub const WATCH_INTERVAL: Duration = Duration::from_secs(2);

/// What one publish did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublishSummary {
    pub machine: String,
    pub generation: u64,
    pub files: usize,
    pub uploaded_files: usize,
    pub uploaded_bytes: u64,
    pub removed_files: usize,
    /// Replaced files kept for readers of an older version (`--keep-replaced`).
    pub retired_files: usize,
    /// Tables whose Delta log got a commit.
    pub delta_commits: usize,
    pub manifest_written: bool,
}

impl fmt::Display for PublishSummary {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "machine {}, generation {}: {} file(s), uploaded {} ({} bytes), {} already there, \
             removed {} stale, {} replaced kept; {} Delta table commit(s); manifest {}",
            self.machine,
            self.generation,
            self.files,
            self.uploaded_files,
            self.uploaded_bytes,
            self.files - self.uploaded_files,
            self.removed_files,
            self.retired_files,
            self.delta_commits,
            if self.manifest_written {
                "written"
            } else {
                "unchanged"
            }
        )
    }
}

/// One local Parquet file and where it goes.
struct LocalFile {
    local: PathBuf,
    table: &'static str,
    /// Dataset-relative path: `<table>/machine=<id>/.../part-<hash>.parquet`.
    remote: String,
}

impl LocalFile {
    /// Its path under its table's directory (the Delta table's root).
    fn table_path(&self) -> &str {
        &self.remote[self.table.len() + 1..]
    }
}

/// A file of the publish as it is in the dataset.
struct PublishedFile {
    size: u64,
    rows: u64,
}

/// How long a replaced file stays in the dataset by default (`esker publish --keep-replaced`):
/// long enough for a query that planned on the previous Delta version or manifest to finish.
pub const DEFAULT_KEEP_REPLACED: Duration = Duration::from_secs(3600);

/// Publishes the current generation of `store` as `machine`; the files it replaces stay
/// `keep_replaced` before a later publish deletes them.
pub async fn publish(
    store: &Store,
    remote: &Remote,
    machine: &str,
    keep_replaced: Duration,
) -> Result<PublishSummary, TeamError> {
    // Reached first: a wrong endpoint, bucket or credentials fail before anything is written.
    let previous = read_manifest(remote, machine).await?;
    let existing = existing_objects(remote, machine).await?;
    store.verify()?;
    let pinned = store.pin_current()?;
    let files = local_files(store.data_dir(), &pinned.root, machine)?;
    let mut summary = PublishSummary {
        machine: machine.to_string(),
        generation: pinned.generation,
        files: files.len(),
        ..PublishSummary::default()
    };
    let staging = Staging::new(store.data_dir())?;
    let mut published = Vec::with_capacity(files.len());
    for file in &files {
        if let Some(&size) = existing.get(&file.remote) {
            let rows = row_count(&file.local)?;
            published.push(PublishedFile { size, rows });
            continue;
        }
        let converted = staging.next_path();
        let rows = rewrite_timestamps(file.table, &file.local, &converted, TimeUnit::Microsecond)?;
        let size = upload(remote, &converted, &file.remote).await;
        let _ = std::fs::remove_file(&converted);
        let size = size?;
        summary.uploaded_files += 1;
        summary.uploaded_bytes += size;
        published.push(PublishedFile { size, rows });
        crash_point(CRASH_AFTER_UPLOAD);
    }
    summary.delta_commits =
        commit_delta_tables(remote, machine, pinned.generation, &files, &published).await?;
    let now = chrono::Utc::now();
    let mut manifest = Manifest {
        manifest_format: MANIFEST_FORMAT,
        machine: machine.to_string(),
        store_format: FORMAT_VERSION,
        generation: pinned.generation,
        published_at: now.to_rfc3339(),
        files: files
            .iter()
            .zip(&published)
            .map(|(file, published)| ManifestFile {
                path: file.remote.clone(),
                size: published.size,
            })
            .collect(),
        retired: Vec::new(),
    };
    let (retired, expired) = retire(&existing, &manifest, previous.as_ref(), keep_replaced, now);
    manifest.retired = retired;
    summary.retired_files = manifest.retired.len();
    if previous.is_none_or(|previous| !previous.same_files(&manifest)) {
        manifest.write(remote).await?;
        summary.manifest_written = true;
    }
    summary.removed_files = remove(remote, &expired).await?;
    Ok(summary)
}

/// The machine's objects that `manifest` does not name, split into those kept (retired now,
/// or since an earlier publish and for less than `keep`) and those to delete.
fn retire(
    existing: &HashMap<String, u64>,
    manifest: &Manifest,
    previous: Option<&Manifest>,
    keep: Duration,
    now: chrono::DateTime<chrono::Utc>,
) -> (Vec<RetiredFile>, Vec<String>) {
    let named: HashSet<&str> = manifest
        .files
        .iter()
        .map(|file| file.path.as_str())
        .collect();
    let retired_since: HashMap<&str, &str> = previous
        .map(|previous| previous.retired.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|file| (file.path.as_str(), file.since.as_str()))
        .collect();
    let mut kept = Vec::new();
    let mut expired = Vec::new();
    let mut paths: Vec<&String> = existing
        .keys()
        .filter(|path| !named.contains(path.as_str()))
        .collect();
    paths.sort();
    for path in paths {
        let since = retired_since
            .get(path.as_str())
            .and_then(|since| chrono::DateTime::parse_from_rfc3339(since).ok())
            .map_or(now, |since| since.with_timezone(&chrono::Utc));
        let held = (now - since).to_std().unwrap_or_default();
        if held >= keep {
            expired.push(path.clone());
        } else {
            kept.push(RetiredFile {
                path: path.clone(),
                since: since.to_rfc3339(),
            });
        }
    }
    (kept, expired)
}

/// One commit per table that holds (or held) the machine's files; returns how many tables
/// changed.
async fn commit_delta_tables(
    remote: &Remote,
    machine: &str,
    generation: u64,
    files: &[LocalFile],
    published: &[PublishedFile],
) -> Result<usize, TeamError> {
    let mut commits = 0;
    for table in TABLES {
        let table_files: Vec<TableFile> = files
            .iter()
            .zip(published)
            .filter(|(file, _)| file.table == table)
            .map(|(file, published)| TableFile {
                path: file.table_path().to_string(),
                size: published.size,
                rows: published.rows,
            })
            .collect();
        if table_files.is_empty() && !delta::is_table(remote, table).await? {
            continue;
        }
        let commit =
            delta::commit_machine_files(remote, table, machine, generation, &table_files).await?;
        if commit.added + commit.removed > 0 {
            commits += 1;
        }
    }
    Ok(commits)
}

/// Where converted files wait for their upload: `<data dir>/publish-staging/`, emptied of
/// what a killed publish left.
struct Staging {
    dir: PathBuf,
    next: std::cell::Cell<u64>,
}

impl Staging {
    fn new(data_dir: &Path) -> Result<Staging, TeamError> {
        let dir = data_dir.join("publish-staging");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(TeamError::io(dir.display()))?;
        Ok(Staging {
            dir,
            next: std::cell::Cell::new(0),
        })
    }

    fn next_path(&self) -> PathBuf {
        let next = self.next.get();
        self.next.set(next + 1);
        self.dir.join(format!("{next}.parquet"))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Rows of a local Parquet file (its footer).
fn row_count(path: &Path) -> Result<u64, TeamError> {
    let file = std::fs::File::open(path).map_err(TeamError::io(path.display()))?;
    let reader = SerializedFileReader::new(file).map_err(|error| {
        TeamError::Store(crate::store::StoreError::Parquet {
            path: path.to_path_buf(),
            message: error.to_string(),
        })
    })?;
    Ok(reader.metadata().file_metadata().num_rows().max(0) as u64)
}

/// Publishes now and after every commit, until the process is stopped; each outcome goes to
/// `report`. A failed publish is retried at the next interval.
pub async fn publish_watch(
    store: &Store,
    remote: &Remote,
    machine: &str,
    keep_replaced: Duration,
    mut report: impl FnMut(Result<PublishSummary, TeamError>),
) -> Result<(), TeamError> {
    let mut published: Option<u64> = None;
    loop {
        let generation = store.current()?.generation;
        if published != Some(generation) {
            let outcome = publish(store, remote, machine, keep_replaced).await;
            if outcome.is_ok() {
                published = Some(generation);
            }
            report(outcome);
        }
        tokio::time::sleep(WATCH_INTERVAL).await;
    }
}

/// The machine's objects now in the dataset (dataset-relative path -> size).
async fn existing_objects(
    remote: &Remote,
    machine: &str,
) -> Result<HashMap<String, u64>, TeamError> {
    let mut existing = HashMap::new();
    for table in TABLES {
        let prefix = remote.path(&format!("{table}/machine={machine}"));
        let listed: Vec<_> = remote
            .store
            .list(Some(&prefix))
            .try_collect()
            .await
            .map_err(|error| remote.failure(&error))?;
        for meta in listed {
            if let Some(relative) = remote.relative(&meta.location) {
                existing.insert(relative, meta.size);
            }
        }
    }
    Ok(existing)
}

/// Uploads `local` to the dataset-relative `relative`; returns its size.
async fn upload(remote: &Remote, local: &Path, relative: &str) -> Result<u64, TeamError> {
    let mut source = tokio::fs::File::open(local)
        .await
        .map_err(TeamError::io(local.display()))?;
    let mut writer = BufWriter::new(remote.store.clone(), remote.path(relative));
    let copied = tokio::io::copy(&mut source, &mut writer).await;
    let finished = match copied {
        Ok(size) => writer.shutdown().await.map(|()| size),
        Err(error) => Err(error),
    };
    match finished {
        Ok(size) => Ok(size),
        Err(error) => {
            let _ = writer.abort().await;
            Err(TeamError::Remote {
                url: remote.display.clone(),
                message: format!("uploading {relative}: {}", super::one_line(&error)),
            })
        }
    }
}

/// Deletes the machine's objects no manifest names any more and whose retention ended
/// (older generations' files, uploads of a publish that died before its manifest).
async fn remove(remote: &Remote, expired: &[String]) -> Result<usize, TeamError> {
    let mut removed = 0;
    for relative in expired {
        match remote.store.delete(&remote.path(relative)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => removed += 1,
            Err(error) => return Err(remote.failure(&error)),
        }
    }
    Ok(removed)
}

/// Every Parquet file of the generation at `root`, with its content-addressed remote path,
/// sorted by remote path.
fn local_files(data_dir: &Path, root: &Path, machine: &str) -> Result<Vec<LocalFile>, TeamError> {
    let mut cache = HashCache::load(data_dir);
    let mut files = BTreeMap::new();
    for table in TABLES {
        let table_dir = root.join(table);
        if !table_dir.is_dir() {
            continue;
        }
        for entry in walkdir::WalkDir::new(&table_dir).sort_by_file_name() {
            let entry = entry.map_err(|error| TeamError::Io {
                path: table_dir.display().to_string(),
                source: error.into(),
            })?;
            let path = entry.path();
            if !entry.file_type().is_file()
                || path
                    .extension()
                    .is_none_or(|extension| extension != "parquet")
            {
                continue;
            }
            let metadata = entry.metadata().map_err(|error| TeamError::Io {
                path: path.display().to_string(),
                source: error.into(),
            })?;
            let hash = published_name_hash(&cache.hash_of(path, &metadata)?);
            let partition = path
                .parent()
                .and_then(|parent| parent.strip_prefix(&table_dir).ok())
                .map(|dir| dir.to_string_lossy().into_owned())
                .unwrap_or_default();
            let remote = if partition.is_empty() {
                format!("{table}/machine={machine}/part-{hash}.parquet")
            } else {
                format!("{table}/machine={machine}/{partition}/part-{hash}.parquet")
            };
            files.insert(
                remote.clone(),
                LocalFile {
                    local: path.to_path_buf(),
                    table,
                    remote,
                },
            );
        }
    }
    cache.save(data_dir);
    Ok(files.into_values().collect())
}

/// Content hashes of local files, remembered by identity so unchanged files are not re-read.
struct HashCache {
    known: HashMap<String, String>,
    used: HashMap<String, String>,
}

impl HashCache {
    fn load(data_dir: &Path) -> HashCache {
        let known = std::fs::read(data_dir.join(HASH_CACHE_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        HashCache {
            known,
            used: HashMap::new(),
        }
    }

    fn hash_of(&mut self, path: &Path, metadata: &std::fs::Metadata) -> Result<String, TeamError> {
        let key = format!(
            "{}:{}:{}:{}",
            metadata.dev(),
            metadata.ino(),
            metadata.len(),
            metadata.mtime_nsec() + metadata.mtime() * 1_000_000_000
        );
        let hash = match self.known.get(&key) {
            Some(hash) => hash.clone(),
            None => content_hash(path)?,
        };
        self.used.insert(key, hash.clone());
        Ok(hash)
    }

    /// Keeps only the entries of the files just published (best effort: a lost cache costs
    /// one re-hash).
    fn save(&self, data_dir: &Path) {
        if let Ok(text) = serde_json::to_vec(&self.used) {
            let path = data_dir.join(HASH_CACHE_FILE);
            let temporary = data_dir.join(format!("{HASH_CACHE_FILE}.tmp-{}", std::process::id()));
            if std::fs::write(&temporary, text).is_ok() {
                let _ = std::fs::rename(&temporary, path);
            }
        }
    }
}

/// The name hash of the published form of a store file whose content hash is `local_hash`:
/// the published file is made from it deterministically (timestamps in microseconds), and
/// its name differs from the store file's (which manifest format 1 published as is).
fn published_name_hash(local_hash: &str) -> String {
    let digest = Sha256::digest(format!("esker-published-v{MANIFEST_FORMAT}:{local_hash}"));
    hex_prefix(&digest)
}

/// The first [`HASH_HEX`] hex digits of a digest.
fn hex_prefix(digest: &[u8]) -> String {
    let mut hex = String::with_capacity(HASH_HEX);
    for byte in digest.iter().take(HASH_HEX / 2) {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

/// SHA-256 of the file's bytes, the first 128 bits in hex.
fn content_hash(path: &Path) -> Result<String, TeamError> {
    let mut file = std::fs::File::open(path).map_err(TeamError::io(path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(TeamError::io(path.display()))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex_prefix(&hasher.finalize()))
}
