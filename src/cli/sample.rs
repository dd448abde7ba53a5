//! The sample corpus kept apart from real history: which store an indexing run writes (the
//! bundled sample goes to its own `<data dir>-sample` store), which store readers open, the
//! notice every command prints when it shows sample data, and removing the sample store once
//! real history is indexed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::config::{sample_corpus_dir, sample_data_dir};
use crate::indexer::run::default_locations;
use crate::store::Store;

/// A file that marks a store as the sample store; only a directory holding it is ever removed.
pub const SAMPLE_MARKER: &str = crate::store::SAMPLE_MARKER;

/// A store and whether it holds the bundled sample sessions rather than real history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreLocation {
    pub data_dir: PathBuf,
    pub sample: bool,
}

impl StoreLocation {
    fn real(data_dir: &Path) -> StoreLocation {
        StoreLocation {
            data_dir: data_dir.to_path_buf(),
            sample: false,
        }
    }

    /// The line a command prints (on stderr) when it shows sample data.
    pub fn notice(&self) -> Option<String> {
        self.sample.then(|| {
            format!(
                "note: showing the bundled SAMPLE sessions (no agent history indexed yet); they live in {}, apart from your store",
                self.data_dir.display()
            )
        })
    }
}

/// What an indexing run reads and where it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexPlan {
    pub paths: Vec<PathBuf>,
    pub location: StoreLocation,
}

#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    #[error("no agent history found in the default locations and no data/sample corpus")]
    NoHistory,
    #[error("cannot prepare the sample store {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// Plans a run into `data_dir`: the given paths, else the harnesses' default locations, else
/// (when no real store exists yet) the sample corpus into its own store. An existing real
/// store with no history to read gets an empty plan rather than sample sessions.
pub fn plan_index(data_dir: &Path, paths: Vec<PathBuf>) -> Result<IndexPlan, SampleError> {
    if !paths.is_empty() {
        return Ok(IndexPlan {
            paths,
            location: StoreLocation::real(data_dir),
        });
    }
    let defaults = default_locations();
    if !defaults.is_empty() || store_exists(data_dir) {
        return Ok(IndexPlan {
            paths: defaults,
            location: StoreLocation::real(data_dir),
        });
    }
    let sample = sample_corpus_dir().ok_or(SampleError::NoHistory)?;
    let sample_store = sample_data_dir(data_dir);
    mark_sample_store(&sample_store)?;
    Ok(IndexPlan {
        paths: vec![sample],
        location: StoreLocation {
            data_dir: sample_store,
            sample: true,
        },
    })
}

/// The store a reader opens: the real one when it exists, else the sample store when the
/// sample was indexed, else the real location (whose absence the reader then reports).
pub fn reading_location(data_dir: &Path) -> StoreLocation {
    if store_exists(data_dir) {
        return StoreLocation::real(data_dir);
    }
    let sample_store = sample_data_dir(data_dir);
    if is_sample_store(&sample_store) {
        return StoreLocation {
            data_dir: sample_store,
            sample: true,
        };
    }
    StoreLocation::real(data_dir)
}

/// Removes the sample store beside `data_dir` (once real history is indexed there); returns
/// whether there was one. A directory without the marker is never touched.
pub fn discard_sample_store(data_dir: &Path) -> io::Result<bool> {
    let sample_store = sample_data_dir(data_dir);
    if !is_sample_store(&sample_store) {
        return Ok(false);
    }
    fs::remove_dir_all(&sample_store)?;
    Ok(true)
}

fn store_exists(data_dir: &Path) -> bool {
    fs::symlink_metadata(data_dir.join("current")).is_ok() && Store::open_existing(data_dir).is_ok()
}

fn is_sample_store(dir: &Path) -> bool {
    dir.join(SAMPLE_MARKER).is_file()
}

fn mark_sample_store(dir: &Path) -> Result<(), SampleError> {
    let failed = |source| SampleError::Io {
        path: dir.to_path_buf(),
        source,
    };
    fs::create_dir_all(dir).map_err(failed)?;
    fs::write(
        dir.join(SAMPLE_MARKER),
        "This store holds esker's bundled sample sessions, not real agent history.\n",
    )
    .map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_store_sits_beside_the_data_dir() {
        assert_eq!(
            sample_data_dir(Path::new("/home/u/.local/share/esker")),
            PathBuf::from("/home/u/.local/share/esker-sample")
        );
    }

    #[test]
    fn readers_prefer_the_real_store_and_only_marked_dirs_are_discarded() {
        let root = tempfile::tempdir().unwrap();
        let data_dir = root.path().join("esker");
        assert!(!reading_location(&data_dir).sample);
        mark_sample_store(&sample_data_dir(&data_dir)).unwrap();
        Store::open(&sample_data_dir(&data_dir)).unwrap();
        assert!(reading_location(&data_dir).sample);
        Store::open(&data_dir).unwrap();
        assert!(!reading_location(&data_dir).sample);
        assert!(discard_sample_store(&data_dir).unwrap());
        assert!(!sample_data_dir(&data_dir).exists());

        let unmarked = root.path().join("other");
        fs::create_dir_all(sample_data_dir(&unmarked)).unwrap();
        assert!(!discard_sample_store(&unmarked).unwrap());
        assert!(sample_data_dir(&unmarked).exists());
    }
}
