//! The sample corpus kept apart from real history: which store an indexing run writes (the
//! bundled sample goes to its own `<data dir>-sample` store), which store readers open, the
//! notice every command prints when it shows sample data, and removing the sample store once
//! real history is indexed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use include_dir::{Dir, include_dir};

use crate::config::{sample_corpus_dir, sample_data_dir};
use crate::indexer::run::default_locations;
use crate::store::Store;

/// The bundled sample sessions, built into the binary so an installed esker (a release
/// archive, a wheel) has them without its source tree.
static BUNDLED_SAMPLE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/data/sample");

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
    let sample_store = sample_data_dir(data_dir);
    let sample = match sample_corpus_dir() {
        Some(checkout) => checkout,
        None => unpack_bundled_sample(&sample_store)?,
    };
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
    let unpacked = unpacked_sample_dir(&sample_store);
    if unpacked.is_dir() {
        fs::remove_dir_all(&unpacked)?;
    }
    Ok(true)
}

/// Where the built-in sample is unpacked: beside the sample store (`<data dir>-sample-corpus`),
/// never inside it, so `--rebuild` of the sample store keeps the logs it reads.
fn unpacked_sample_dir(sample_store: &Path) -> PathBuf {
    let mut name = sample_store
        .file_name()
        .map(|name| name.to_os_string())
        .unwrap_or_default();
    name.push("-corpus");
    sample_store.with_file_name(name)
}

/// Unpacks the built-in sample once (into a temporary directory renamed into place, so a
/// crash never leaves half a corpus) and returns its directory.
fn unpack_bundled_sample(sample_store: &Path) -> Result<PathBuf, SampleError> {
    let target = unpacked_sample_dir(sample_store);
    if target.is_dir() {
        return Ok(target);
    }
    if BUNDLED_SAMPLE.entries().is_empty() {
        return Err(SampleError::NoHistory);
    }
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SampleError::Io { path, source }
    };
    let parent = target.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(failed(parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".esker-sample-unpack")
        .tempdir_in(parent)
        .map_err(failed(parent))?;
    BUNDLED_SAMPLE
        .extract(staging.path())
        .map_err(failed(staging.path()))?;
    fs::rename(staging.keep(), &target).map_err(failed(&target))?;
    Ok(target)
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
