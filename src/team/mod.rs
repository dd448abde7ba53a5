//! Team scale: a store's tables published to object storage (S3 and S3-compatible, GCS, Azure,
//! local paths) as one Hive-partitioned dataset per team, read back by esker (`query`, `pull`)
//! or by any engine that reads Parquet.
//!
//! ```text
//! <URL>/
//!   events/machine=<id>/source=<s>/month=<YYYY-MM>/part-<content hash>.parquet
//!   turns/machine=<id>/part-<content hash>.parquet        (sessions, file_touches, memories alike)
//!   _manifests/<id>.json                                    the files of each machine's latest
//!                                                           publish, written after its files
//! ```
//! File names are content hashes, so a file already there is never uploaded again; a manifest
//! is replaced (one atomic PUT) only after every file it names is uploaded, so esker readers,
//! which read exactly the files the manifests name, never see a half-published generation.

pub mod ddl;
pub mod delta;
pub mod event_rows;
pub mod filtered;
pub mod machine;
pub mod manifest;
pub mod publish;
pub mod pull;
pub mod read;
pub mod remote;
pub mod timestamps;

use crate::store::StoreError;

/// Errors of publishing to and reading from object storage.
#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error("{0}")]
    Usage(String),
    /// The endpoint, bucket or credentials do not work (one line, no secrets).
    #[error("cannot use {url}: {message}")]
    Remote { url: String, message: String },
    /// Another writer's Delta commit conflicts with this one (`delta::commit_machine_files`
    /// plans it again).
    #[error("cannot use {url}: {message}")]
    DeltaConflict { url: String, message: String },
    #[error("no esker dataset at {0}: no manifest under _manifests/ (run `esker publish {0}`)")]
    NoDataset(String),
    #[error("bad manifest {path}: {message}")]
    BadManifest { path: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Query(#[from] crate::query::QueryError),
    #[error(transparent)]
    Search(#[from] crate::search::SearchError),
}

impl TeamError {
    pub(crate) fn io(path: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> TeamError {
        let path = path.to_string();
        move |source| TeamError::Io { path, source }
    }
}

/// One line of an object store error: its messages joined, newlines folded (the store's
/// errors name URLs and HTTP statuses, never credentials).
pub(crate) fn one_line(error: &dyn std::error::Error) -> String {
    let mut parts = vec![error.to_string()];
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ").replace(['\n', '\r'], " ")
}

/// Whether a `--data-dir` value names a published dataset (`s3://`, `gs://`, `az://`,
/// `file://`, ...) rather than a local store directory.
pub fn is_dataset_url(text: &str) -> bool {
    remote::SCHEMES
        .iter()
        .any(|scheme| text.starts_with(&format!("{scheme}://")))
}
