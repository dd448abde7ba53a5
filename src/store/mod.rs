//! The on-disk store: immutable generations of Parquet tables + a tantivy index, with an atomic
//! `current` pointer.
//!
//! ```text
//! <data_dir>/
//!   current -> generations/g000042        symlink, flipped atomically by rename
//!   generations/g000042/
//!     events/source=codex/month=2026-04/part-g000042.parquet   up to 8 files a partition: an
//!                                         append writes only the new events (size-tiered merges)
//!     turns/part-b07-g000042.parquet          16 buckets by a hash of the session id: a base
//!     turns/part-b07-h000045.parquet          file and a small hot file holding the sessions
//!                                         touched since the base was written
//!     sessions/part-b07-g000042.parquet       bucketed like turns
//!     file_touches/part-b07-g000042.parquet   bucketed like turns
//!     tantivy/                            hard links to the master index files of this commit
//!     state/s07.json                      64 shards: the checkpoints of the source files and the
//!                                         locations of the sessions whose path / id hash there
//!     state.json                          the state's scalars (search opstamp, redaction); written
//!                                         last: a generation without it is incomplete
//!     memories/, memory_index/, memory_fold.json   memory entries folded from the journal
//!                                         (`crate::memory`), carried forward by every commit
//!   tantivy/                              the master (writable) tantivy index
//!   index.lock                            flock held by the one writer (`esker index` or a
//!                                         server's watcher); released by the kernel on death
//!   memory/journal.jsonl                  memory entries as saved; kept by `--rebuild`
//! ```
//! Readers pin the generation they read (a shared flock on `generations/gNNNNNN.pin`); a
//! writer removes only old generations nobody pins, so a query never loses its files.
//! A generation never changes once `current` points at it; unchanged Parquet files are hard
//! links shared between generations, and so are the state shards a commit did not change, so a
//! commit costs what it rewrites.
//!
//! The store knows files, generations and commits, and imports nothing above it (a test in
//! `tests/it/layering.rs` holds it to that). What a generation holds beside its Parquet files
//! (the search index, memory entries) is written by the layer above: [`crate::engine`] opens a
//! store (`Store::open`, giving it the empty search index a new generation holds) and drives
//! a commit (tables through [`commit`], the index through `search`, memory through `memory`).

pub mod chains;
pub mod commit;
pub mod digest;
pub mod faults;
pub mod parquet_io;
pub mod rows;
pub mod state;

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Errors of the store layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("parquet error in {path}: {message}")]
    Parquet { path: PathBuf, message: String },
    #[error(
        "corrupt store state {path}: {message} (run `esker index --rebuild` to rebuild the \
         store from the source logs)"
    )]
    CorruptState { path: PathBuf, message: String },
    #[error(
        "another esker writer ({holder}) is indexing into {data_dir}; only one writer at a \
         time: wait for it (`esker index --wait`) or stop it"
    )]
    Locked { data_dir: PathBuf, holder: String },
    #[error("no esker store at {0}: run `esker index` first (or pass --data-dir)")]
    Missing(PathBuf),
    #[error(
        "the esker store at {data_dir} has format {found}, this esker reads format {expected}: \
         run `esker index --rebuild` (or `esker index`, which rebuilds it) to rebuild it from \
         the source logs"
    )]
    OutdatedFormat {
        data_dir: PathBuf,
        found: u32,
        expected: u32,
    },
    /// A failure of what a layer above keeps in a generation (the search index, the memory
    /// index, the tables' declared schemas), shown as that layer reports it. The layers convert
    /// their own errors into it (`impl From<SearchError> for StoreError` in `search`, and so
    /// on), so the store names none of their types.
    #[error(transparent)]
    Contents(Box<dyn std::error::Error + Send + Sync + 'static>),
}

impl StoreError {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> StoreError {
        let path = path.into();
        move |source| StoreError::Io { path, source }
    }
}

/// Writes what an empty generation holds beside its empty table directories (the search
/// layer's empty index), into the generation directory it is given.
pub type EmptyContents = fn(&Path) -> Result<(), StoreError>;

/// A data directory.
#[derive(Debug, Clone)]
pub struct Store {
    data_dir: PathBuf,
    empty_contents: EmptyContents,
}

/// One committed, immutable generation of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub generation: u64,
    /// The generation directory (holds `events/`, `turns/`, `sessions/`, `tantivy/`).
    pub root: PathBuf,
}

/// Version of the store's layout, table schemas and index schema. A generation records the
/// version that wrote it; readers refuse another one and the indexer rebuilds it.
/// 1: wave 1 (no marker file). 2: inferred timestamps, token usage columns. 3: chain
/// positions on sessions. 4: CJK and Thai bigrams in the search index (issue #23). 5: the
/// `file_touches` table. 6: Parquet laid out for lookups (declared sort, 1024-row pages, page
/// statistics on lookup columns) and a search index that locates every event (`unknown`
/// included) without a stored copy of it (issue #21). 7: the state split into 64 shards under
/// `state/` with only its scalars left in `state.json` (issue #11). 8: state shards with
/// deltas (`state/sNN.dK.json`, listed in `state.json`), so a commit writes what it changed.
/// 9: new search indexes find an event id by its 64-bit key (`event_key`, the id stored only)
/// and keep `seq` and `timestamp_micros` as fast fields only; an esker reading format 8 would
/// look the id up as a term it no longer indexes.
pub const FORMAT_VERSION: u32 = 9;
/// Older formats this version reads as they are: format 7 is format 8 without state deltas,
/// format 8 an index that finds event ids by their text (an index keeps the schema it was
/// created with, so a store continued by this version keeps it); their next commit writes
/// format 9.
const READABLE_FORMATS: [u32; 2] = [7, 8];

/// Whether a generation (or a published dataset) of format `found` is read without a rebuild.
pub fn is_readable_format(found: u32) -> bool {
    found == FORMAT_VERSION || READABLE_FORMATS.contains(&found)
}
/// The file in each generation that holds its format version.
const FORMAT_FILE: &str = "format";

/// Writes the format marker into a generation being built.
pub(crate) fn write_format(generation_root: &Path) -> Result<(), StoreError> {
    let path = generation_root.join(FORMAT_FILE);
    fs::write(&path, format!("{FORMAT_VERSION}\n")).map_err(StoreError::io(&path))
}

/// Hard-links `from` to `to` (copies where links are refused): how a commit carries an
/// unchanged file into the next generation.
pub(crate) fn link_or_copy(from: &Path, to: &Path) -> Result<(), StoreError> {
    fs::hard_link(from, to)
        .or_else(|_| fs::copy(from, to).map(|_| ()))
        .map_err(StoreError::io(to))
}

/// The format version a generation was written with (1 when it has no marker).
fn format_of(generation_root: &Path) -> u32 {
    fs::read_to_string(generation_root.join(FORMAT_FILE))
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(1)
}

/// The file that marks a data dir as the bundled sample's store (`crate::cli::sample`).
pub const SAMPLE_MARKER: &str = "ESKER_SAMPLE_STORE";
/// The directory of the `memories` table (written by `crate::memory`).
pub const MEMORIES_TABLE: &str = "memories";
/// The table directories of a generation.
pub const TABLES: [&str; 5] = [
    "events",
    "turns",
    "sessions",
    "file_touches",
    MEMORIES_TABLE,
];
const GENERATIONS_DIR: &str = "generations";
/// How often `pin_current` retries when writers keep removing what it resolved.
const PIN_ATTEMPTS: usize = 50;
const CURRENT_LINK: &str = "current";

impl Store {
    /// Opens (creating if needed) the store at `data_dir`. A new store gets an empty
    /// generation 0 (empty tables plus what `empty_contents` writes) so readers always have
    /// tables to open. Callers use `Store::open` (`crate::engine`), which passes the empty
    /// search index.
    pub fn open_with(data_dir: &Path, empty_contents: EmptyContents) -> Result<Store, StoreError> {
        fs::create_dir_all(data_dir.join(GENERATIONS_DIR))
            .map_err(StoreError::io(data_dir.join(GENERATIONS_DIR)))?;
        let data_dir = data_dir.canonicalize().map_err(StoreError::io(data_dir))?;
        let store = Store {
            data_dir,
            empty_contents,
        };
        if fs::symlink_metadata(store.current_link()).is_err() {
            store.create_empty_generation()?;
        }
        Ok(store)
    }

    /// Opens an existing store for reading; a missing one is an error, not created.
    pub fn open_existing_with(
        data_dir: &Path,
        empty_contents: EmptyContents,
    ) -> Result<Store, StoreError> {
        let has_store = fs::symlink_metadata(data_dir.join(CURRENT_LINK)).is_ok()
            || data_dir.join(GENERATIONS_DIR).is_dir();
        if !has_store {
            return Err(StoreError::Missing(data_dir.to_path_buf()));
        }
        Store::open_with(data_dir, empty_contents)
    }

    /// Checks that `current` resolves to a generation that has its state file, so damage is
    /// reported up front with the way out rather than as a confusing query failure. The state
    /// is not parsed here (tens of MB at a million documents): readers never need it, and the
    /// writer's own load reports a corrupt one.
    pub fn verify(&self) -> Result<Snapshot, StoreError> {
        let snapshot = self.current()?;
        if !snapshot.root.is_dir() {
            return Err(StoreError::CorruptState {
                path: self.current_link(),
                message: format!("current points at a missing {}", snapshot.root.display()),
            });
        }
        let state_file = snapshot.root.join(state::STATE_FILE);
        if !state_file.is_file() {
            return Err(StoreError::CorruptState {
                path: state_file,
                message: "the generation has no state file".to_string(),
            });
        }
        let found = format_of(&snapshot.root);
        if !is_readable_format(found) {
            return Err(StoreError::OutdatedFormat {
                data_dir: self.data_dir.clone(),
                found,
                expected: FORMAT_VERSION,
            });
        }
        Ok(snapshot)
    }

    /// The current generation's format version when it is a complete generation written by
    /// another esker (a damaged store is not outdated: [`Store::verify`] reports it).
    pub fn outdated_format(&self) -> Result<Option<u32>, StoreError> {
        let snapshot = self.current()?;
        if !snapshot.root.join(state::STATE_FILE).is_file() {
            return Ok(None);
        }
        let found = format_of(&snapshot.root);
        Ok((!is_readable_format(found)).then_some(found))
    }

    /// Deletes every generation, the master index and `current`, then creates an empty
    /// generation 0: the start of `esker index --rebuild`. Call with the writer lock held.
    pub fn reset(&self, _lock: &WriterLock) -> Result<(), StoreError> {
        let _ = fs::remove_file(self.current_link());
        for dir in [self.data_dir.join(GENERATIONS_DIR), self.master_index_dir()] {
            if dir.exists() {
                fs::remove_dir_all(&dir).map_err(StoreError::io(&dir))?;
            }
        }
        fs::create_dir_all(self.data_dir.join(GENERATIONS_DIR))
            .map_err(StoreError::io(self.data_dir.join(GENERATIONS_DIR)))?;
        self.create_empty_generation()
    }

    /// Resolves `current` and pins it: the generation stays on disk while the pin lives.
    pub fn pin_current(&self) -> Result<PinnedSnapshot, StoreError> {
        for _ in 0..PIN_ATTEMPTS {
            let snapshot = self.current()?;
            if let Some(pin) = self.try_pin(&snapshot)? {
                return Ok(pin);
            }
        }
        Err(StoreError::CorruptState {
            path: self.current_link(),
            message: "current keeps pointing at removed generations".to_string(),
        })
    }

    /// Pins `snapshot` unless a writer removed it in the meantime.
    fn try_pin(&self, snapshot: &Snapshot) -> Result<Option<PinnedSnapshot>, StoreError> {
        let pin_path = self.pin_path(snapshot.generation);
        let file = match fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&pin_path)
        {
            Ok(file) => file,
            Err(error) => return Err(StoreError::io(&pin_path)(error)),
        };
        file.lock_shared().map_err(StoreError::io(&pin_path))?;
        // The writer deletes the directory before the pin file, holding the pin exclusively.
        if !snapshot.root.join("state.json").is_file() {
            return Ok(None);
        }
        Ok(Some(PinnedSnapshot {
            snapshot: snapshot.clone(),
            _pin: file,
        }))
    }

    fn pin_path(&self, generation: u64) -> PathBuf {
        self.data_dir
            .join(GENERATIONS_DIR)
            .join(format!("{}.pin", generation_name(generation)))
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The generation `current` points at.
    pub fn current(&self) -> Result<Snapshot, StoreError> {
        let link = self.current_link();
        let target = fs::read_link(&link).map_err(StoreError::io(&link))?;
        let name = target
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default()
            .to_string();
        let generation = parse_generation_name(&name).ok_or_else(|| StoreError::CorruptState {
            path: link.clone(),
            message: format!("current points at {}", target.display()),
        })?;
        Ok(Snapshot {
            generation,
            root: self.generation_dir(generation),
        })
    }

    pub fn master_index_dir(&self) -> PathBuf {
        self.data_dir.join("tantivy")
    }

    pub fn lock_path(&self) -> PathBuf {
        self.data_dir.join("index.lock")
    }

    fn current_link(&self) -> PathBuf {
        self.data_dir.join(CURRENT_LINK)
    }

    pub(crate) fn generation_dir(&self, generation: u64) -> PathBuf {
        self.data_dir
            .join(GENERATIONS_DIR)
            .join(generation_name(generation))
    }

    /// The highest generation number present on disk (committed or not).
    pub(crate) fn highest_generation_on_disk(&self) -> Result<u64, StoreError> {
        let dir = self.data_dir.join(GENERATIONS_DIR);
        let entries = fs::read_dir(&dir).map_err(StoreError::io(&dir))?;
        Ok(entries
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| parse_generation_name(entry.file_name().to_str()?))
            .max()
            .unwrap_or(0))
    }

    /// Points `current` at `generation` atomically (symlink + rename).
    pub(crate) fn flip_current(&self, generation: u64) -> Result<(), StoreError> {
        let temporary_link = self
            .data_dir
            .join(format!("current.tmp-{}", std::process::id()));
        let _ = fs::remove_file(&temporary_link);
        let relative_target = Path::new(GENERATIONS_DIR).join(generation_name(generation));
        std::os::unix::fs::symlink(&relative_target, &temporary_link)
            .map_err(StoreError::io(&temporary_link))?;
        fs::rename(&temporary_link, self.current_link())
            .map_err(StoreError::io(self.current_link()))
    }

    /// Removes every generation except `keep`, `previous` (for readers that do not pin, such
    /// as DuckDB following `current`) and the ones readers pin (a pin is a shared flock; a
    /// generation is removed only under an exclusive one).
    pub(crate) fn remove_old_generations(
        &self,
        keep: u64,
        previous: u64,
    ) -> Result<(), StoreError> {
        let dir = self.data_dir.join(GENERATIONS_DIR);
        let entries = fs::read_dir(&dir).map_err(StoreError::io(&dir))?;
        let mut generations: BTreeSet<u64> = BTreeSet::new();
        for entry in entries.filter_map(|entry| entry.ok()) {
            let name = entry.file_name();
            let name = name.to_str().unwrap_or_default();
            let generation = parse_generation_name(name)
                .or_else(|| parse_generation_name(name.strip_suffix(".pin")?));
            generations.extend(generation);
        }
        for generation in generations
            .into_iter()
            .filter(|&generation| generation != keep && generation != previous)
        {
            self.remove_generation_unless_pinned(generation)?;
        }
        Ok(())
    }

    fn remove_generation_unless_pinned(&self, generation: u64) -> Result<(), StoreError> {
        let pin_path = self.pin_path(generation);
        let pin = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&pin_path)
            .map_err(StoreError::io(&pin_path))?;
        match pin.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => return Ok(()),
            Err(fs::TryLockError::Error(error)) => return Err(StoreError::io(&pin_path)(error)),
        }
        let root = self.generation_dir(generation);
        if root.exists() {
            fs::remove_dir_all(&root).map_err(StoreError::io(&root))?;
        }
        fs::remove_file(&pin_path).map_err(StoreError::io(&pin_path))
    }

    /// Builds generation 0 (empty tables and index) aside and renames it into place, so two
    /// processes opening a new store at once cannot trip over each other's half-built copy.
    fn create_empty_generation(&self) -> Result<(), StoreError> {
        let staging = self
            .data_dir
            .join(GENERATIONS_DIR)
            .join(format!(".init-{}", std::process::id()));
        if staging.exists() {
            fs::remove_dir_all(&staging).map_err(StoreError::io(&staging))?;
        }
        for table in TABLES {
            fs::create_dir_all(staging.join(table)).map_err(StoreError::io(staging.join(table)))?;
        }
        (self.empty_contents)(&staging)?;
        state::StoreState::default().save(&staging)?;
        write_format(&staging)?;
        let root = self.generation_dir(0);
        if fs::rename(&staging, &root).is_err() {
            // Another process created it first: use theirs.
            fs::remove_dir_all(&staging).map_err(StoreError::io(&staging))?;
        }
        if fs::symlink_metadata(self.current_link()).is_err() {
            self.flip_current(0)?;
        }
        Ok(())
    }
}

fn generation_name(generation: u64) -> String {
    format!("g{generation:06}")
}

fn parse_generation_name(name: &str) -> Option<u64> {
    name.strip_prefix('g')?.parse().ok()
}

/// The store's writer lock: an exclusive flock on `index.lock`, released when dropped or
/// when the process dies (so a crash never leaves a stale lock behind).
pub struct WriterLock {
    _file: fs::File,
}

const LOCK_POLL: std::time::Duration = std::time::Duration::from_millis(100);

impl WriterLock {
    /// Takes the lock, or fails at once with [`StoreError::Locked`] naming the holder.
    pub fn try_acquire(store: &Store, role: &str) -> Result<WriterLock, StoreError> {
        let path = store.lock_path();
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(StoreError::io(&path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(StoreError::Locked {
                    data_dir: store.data_dir.clone(),
                    holder: lock_holder(&path),
                });
            }
            Err(fs::TryLockError::Error(error)) => return Err(StoreError::io(&path)(error)),
        }
        use std::io::Write;
        let _ = file.set_len(0);
        let _ = writeln!(file, "pid {}: {role}", std::process::id());
        Ok(WriterLock { _file: file })
    }

    /// Takes the lock, waiting up to `wait` for the running writer to finish.
    pub fn acquire_waiting(
        store: &Store,
        role: &str,
        wait: std::time::Duration,
    ) -> Result<WriterLock, StoreError> {
        let deadline = std::time::Instant::now() + wait;
        loop {
            match WriterLock::try_acquire(store, role) {
                Err(StoreError::Locked { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(LOCK_POLL);
                }
                outcome => return outcome,
            }
        }
    }
}

/// What the holder wrote into the lock file ("pid 123: esker index").
fn lock_holder(path: &Path) -> String {
    fs::read_to_string(path)
        .ok()
        .map(|text| text.trim().to_string())
        .filter(|text| !text.is_empty())
        .unwrap_or_else(|| "unknown process".to_string())
}

/// A generation pinned for reading: it is not removed while this value lives.
#[derive(Debug)]
pub struct PinnedSnapshot {
    pub snapshot: Snapshot,
    _pin: fs::File,
}

impl std::ops::Deref for PinnedSnapshot {
    type Target = Snapshot;

    fn deref(&self) -> &Snapshot {
        &self.snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_format_and_the_listed_older_ones_are_read_others_rebuilt() {
        for readable in [7, 8, FORMAT_VERSION] {
            assert!(is_readable_format(readable), "{readable}");
        }
        for refused in [1, 6, FORMAT_VERSION + 1] {
            assert!(!is_readable_format(refused), "{refused}");
        }
    }
}
