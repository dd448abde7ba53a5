//! Memory entries (seed 001, codex-mem): durable notes an agent saves — decisions,
//! constraints, findings — kept in the same store as the logs and found again by BM25 search.
//!
//! # Where entries live
//! ```text
//! <data_dir>/memory/journal.jsonl          the source of every entry: one checksummed JSON
//!                                          line per entry, appended and fsynced before a save
//!                                          is acknowledged; never rewritten
//! <data_dir>/generations/gN/memories/      the `memories` Parquet table (tables/memories.sql)
//! <data_dir>/generations/gN/memory_index/  a tantivy index of the entries (BM25 over title
//!                                          and body, every column stored)
//! <data_dir>/generations/gN/memory_fold.json  how much of the journal gN holds
//! ```
//! Every commit of the store folds the journal's unfolded tail into the next generation and
//! carries the folded entries forward (hard links), so `esker query` sees `memories` like any
//! table, a crash leaves either generation, and `esker index --rebuild` (which deletes the
//! generations) folds the whole journal again: entries are never lost to a rebuild. A server
//! that saved entries folds them itself as soon as it can take the writer lock
//! ([`folder`]); until then readers search the folded index and the journal tail together
//! ([`view`]), so an entry is searchable as soon as its save returns.
//!
//! # Layout
//! - [`entry`]: the entry and its normalisation (titles, defaults, content hash).
//! - [`journal`]: appending and reading the journal (checksums, torn tails, locks).
//! - [`policy`]: refusing text that holds a secret (esker's redaction rules).
//! - [`index`]: the tantivy schema and documents; [`search`]: queries over the folded index
//!   and the tail together, with BM25 statistics of both.
//! - [`table`]: the Parquet side; [`fold`]: folding into a generation, memory-only commits;
//!   [`folder`]: the server's background folding.
//! - [`view`]: a reader's view (pinned generation + journal tail).
//! - [`service`]: the six operations (`save_memory`, `search`, `timeline`, `get_entries`,
//!   `ingest_docs`, `retention_dry_run`) that the MCP profile and `esker memory` share, with
//!   [`ingest_docs`] and [`retention`].

pub mod entry;
pub mod fold;
pub mod folder;
pub mod index;
pub mod ingest_docs;
pub mod journal;
pub mod policy;
pub mod retention;
pub mod search;
pub mod service;
pub mod table;
pub mod view;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::store::StoreError;

/// The directory of the journal under a data dir.
const MEMORY_DIR: &str = "memory";
/// The journal file in [`MEMORY_DIR`].
const JOURNAL_FILE: &str = "journal.jsonl";

/// The journal of the store at `data_dir`. The bundled sample store (`<data dir>-sample`,
/// deleted once real history is indexed) keeps its journal in the real data dir beside it,
/// so entries saved while only the sample existed are folded into the real store later.
pub fn journal_path(data_dir: &Path) -> PathBuf {
    let owner = real_data_dir_of_sample(data_dir).unwrap_or_else(|| data_dir.to_path_buf());
    owner.join(MEMORY_DIR).join(JOURNAL_FILE)
}

/// The real data dir a sample store stands beside (`/x/esker-sample` → `/x/esker`).
fn real_data_dir_of_sample(data_dir: &Path) -> Option<PathBuf> {
    if !data_dir.join(crate::store::SAMPLE_MARKER).is_file() {
        return None;
    }
    let name = data_dir.file_name()?.to_str()?;
    let real_name = name.strip_suffix("-sample")?;
    Some(data_dir.with_file_name(real_name))
}

/// The seed's error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidArgument,
    PolicyBlocked,
    EntryNotFound,
    StorageFailure,
    MigrationFailure,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 5] = [
        ErrorCode::InvalidArgument,
        ErrorCode::PolicyBlocked,
        ErrorCode::EntryNotFound,
        ErrorCode::StorageFailure,
        ErrorCode::MigrationFailure,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::PolicyBlocked => "POLICY_BLOCKED",
            ErrorCode::EntryNotFound => "ENTRY_NOT_FOUND",
            ErrorCode::StorageFailure => "STORAGE_FAILURE",
            ErrorCode::MigrationFailure => "MIGRATION_FAILURE",
        }
    }
}

/// A failed memory operation: the seed's `{code, message, details}`. Messages are safe to
/// show a client: a policy error names the kind of secret, never its value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {message}", code.as_str())]
pub struct MemoryError {
    pub code: ErrorCode,
    pub message: String,
    pub details: Map<String, Value>,
}

impl MemoryError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> MemoryError {
        MemoryError {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// `INVALID_ARGUMENT` about one input field.
    pub fn invalid(field: &str, message: impl Into<String>) -> MemoryError {
        MemoryError::new(ErrorCode::InvalidArgument, message).with_detail("field", field)
    }

    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> MemoryError {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// The error as the seed's JSON object.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "code": self.code.as_str(),
            "message": self.message,
            "details": self.details,
        })
    }
}

impl From<StoreError> for MemoryError {
    fn from(error: StoreError) -> MemoryError {
        tracing::error!(%error, "memory storage failed");
        // A store or memory index of another shape needs a rebuild, not a retry.
        let code = match &error {
            StoreError::OutdatedFormat { .. } | StoreError::CorruptState { .. } => {
                ErrorCode::MigrationFailure
            }
            StoreError::Contents(contents) if is_schema_error(contents.as_ref()) => {
                ErrorCode::MigrationFailure
            }
            _ => ErrorCode::StorageFailure,
        };
        let message = match code {
            ErrorCode::MigrationFailure => "the store needs `esker index --rebuild`",
            _ => "storage operation failed",
        };
        MemoryError::new(code, message).with_detail("cause", error.to_string())
    }
}

/// Whether a search index failure is an index of another schema.
fn is_schema_error(error: &(dyn std::error::Error + Send + Sync + 'static)) -> bool {
    matches!(
        error.downcast_ref::<crate::search::SearchError>(),
        Some(crate::search::SearchError::Tantivy(
            tantivy::TantivyError::SchemaError(_)
        ))
    )
}

impl From<crate::search::SearchError> for MemoryError {
    fn from(error: crate::search::SearchError) -> MemoryError {
        MemoryError::from(StoreError::from(error))
    }
}

impl From<tantivy::TantivyError> for MemoryError {
    fn from(error: tantivy::TantivyError) -> MemoryError {
        MemoryError::from(crate::search::SearchError::from(error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_store_journals_into_the_real_data_dir() {
        let root = tempfile::tempdir().unwrap();
        let real = root.path().join("esker");
        let sample = root.path().join("esker-sample");
        std::fs::create_dir_all(&sample).unwrap();
        assert_eq!(
            journal_path(&sample),
            sample.join("memory").join("journal.jsonl")
        );
        std::fs::write(sample.join(crate::store::SAMPLE_MARKER), "x").unwrap();
        assert_eq!(
            journal_path(&sample),
            real.join("memory").join("journal.jsonl")
        );
        assert_eq!(
            journal_path(&real),
            real.join("memory").join("journal.jsonl")
        );
    }

    #[test]
    fn errors_have_the_seed_shape() {
        let error = MemoryError::invalid("text", "text is required");
        assert_eq!(
            error.to_json(),
            serde_json::json!({
                "code": "INVALID_ARGUMENT",
                "message": "text is required",
                "details": {"field": "text"},
            })
        );
        let outdated = MemoryError::from(StoreError::OutdatedFormat {
            data_dir: "/x".into(),
            found: 1,
            expected: 3,
        });
        assert_eq!(outdated.code, ErrorCode::MigrationFailure);
    }
}
