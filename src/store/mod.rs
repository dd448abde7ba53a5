//! The on-disk store: immutable generations of Parquet tables + a tantivy index, with an atomic
//! `current` pointer.
//!
//! ```text
//! <data_dir>/
//!   current -> generations/g000042        symlink, flipped atomically by rename
//!   generations/g000042/
//!     events/source=codex/month=2026-04/part-g000042-0.parquet
//!     turns/part-g000042.parquet
//!     sessions/part-g000042.parquet
//!     tantivy/                            hard links to the master index files of this commit
//!     state.json                          checkpoints of every source file + session locations
//!   tantivy/                              the master (writable) tantivy index
//!   index.lock                            held by the one `esker index` writing
//! ```
//! A generation never changes once `current` points at it; unchanged Parquet files are hard
//! links shared between generations, so a commit costs what it rewrites.

pub mod chains;
pub mod commit;
pub mod parquet_io;
pub mod rows;
pub mod state;

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
    #[error("corrupt store state {path}: {message}")]
    CorruptState { path: PathBuf, message: String },
    #[error("another `esker index` holds {0}; wait for it or remove the stale lock")]
    Locked(PathBuf),
    #[error(transparent)]
    Query(#[from] crate::query::QueryError),
    #[error(transparent)]
    Search(#[from] crate::search::SearchError),
}

impl StoreError {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> StoreError {
        let path = path.into();
        move |source| StoreError::Io { path, source }
    }
}

/// A data directory.
#[derive(Debug, Clone)]
pub struct Store {
    data_dir: PathBuf,
}

/// One committed, immutable generation of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub generation: u64,
    /// The generation directory (holds `events/`, `turns/`, `sessions/`, `tantivy/`).
    pub root: PathBuf,
}

const GENERATIONS_DIR: &str = "generations";
const CURRENT_LINK: &str = "current";

impl Store {
    /// Opens (creating if needed) the store at `data_dir`. A new store gets an empty
    /// generation 0 so readers always have tables to open.
    pub fn open(data_dir: &Path) -> Result<Store, StoreError> {
        fs::create_dir_all(data_dir.join(GENERATIONS_DIR))
            .map_err(StoreError::io(data_dir.join(GENERATIONS_DIR)))?;
        let data_dir = data_dir.canonicalize().map_err(StoreError::io(data_dir))?;
        let store = Store { data_dir };
        if fs::symlink_metadata(store.current_link()).is_err() {
            store.create_empty_generation()?;
        }
        Ok(store)
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

    /// Removes every generation except `keep` and the one before it (readers that resolved
    /// `current` a moment ago may still be reading that one).
    pub(crate) fn remove_old_generations(
        &self,
        keep: u64,
        previous: u64,
    ) -> Result<(), StoreError> {
        let dir = self.data_dir.join(GENERATIONS_DIR);
        let entries = fs::read_dir(&dir).map_err(StoreError::io(&dir))?;
        for entry in entries.filter_map(|entry| entry.ok()) {
            let Some(generation) = entry.file_name().to_str().and_then(parse_generation_name)
            else {
                continue;
            };
            if generation != keep && generation != previous {
                fs::remove_dir_all(entry.path()).map_err(StoreError::io(entry.path()))?;
            }
        }
        Ok(())
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
        for table in ["events", "turns", "sessions"] {
            fs::create_dir_all(staging.join(table)).map_err(StoreError::io(staging.join(table)))?;
        }
        crate::search::SearchIndex::create_empty(&staging.join("tantivy"))?;
        state::StoreState::default().save(&staging)?;
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

/// Takes the store's writer lock for the life of the returned guard.
pub struct WriterLock {
    path: PathBuf,
}

/// How long a writer waits for another one (a server's background pass, say) to finish.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(120);
const LOCK_POLL: std::time::Duration = std::time::Duration::from_millis(100);

impl WriterLock {
    /// Takes the lock, waiting up to two minutes for a running writer to finish.
    pub fn acquire(store: &Store) -> Result<WriterLock, StoreError> {
        let deadline = std::time::Instant::now() + LOCK_WAIT;
        loop {
            match WriterLock::try_acquire(store) {
                Err(StoreError::Locked(_)) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(LOCK_POLL);
                }
                outcome => return outcome,
            }
        }
    }

    fn try_acquire(store: &Store) -> Result<WriterLock, StoreError> {
        let path = store.lock_path();
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                use std::io::Write;
                let _ = writeln!(file, "{}", std::process::id());
                Ok(WriterLock { path })
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                if lock_holder_is_dead(&path) {
                    fs::remove_file(&path).map_err(StoreError::io(&path))?;
                    return WriterLock::try_acquire(store);
                }
                Err(StoreError::Locked(path))
            }
            Err(error) => Err(StoreError::Io {
                path,
                source: error,
            }),
        }
    }
}

/// A lock whose pid no longer runs was left by a crash: safe to take over.
fn lock_holder_is_dead(path: &Path) -> bool {
    let Ok(content) = fs::read_to_string(path) else {
        return false;
    };
    let Ok(pid) = content.trim().parse::<u32>() else {
        return true;
    };
    !Path::new(&format!("/proc/{pid}")).exists()
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}
