//! Per-generation bookkeeping (`state.json`): a checkpoint per source file and where each
//! session's rows live, committed atomically with the tables.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::StoreError;

pub(crate) const STATE_FILE: &str = "state.json";

/// What the store knows about one source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Size in bytes when last read.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// (device, inode): tells a file replaced under the same name.
    pub device: u64,
    pub inode: u64,
    /// Byte offset just past the last complete line ingested (the whole size for JSON files).
    pub complete_offset: u64,
    /// Hash of bytes `[0, complete_offset)`: tells a rewrite from an append.
    pub content_hash: String,
    /// Recognised format name.
    pub format: String,
    /// Sessions whose rows came from this file.
    pub sessions: Vec<String>,
    /// Malformed complete lines skipped in this file.
    pub malformed_lines: u64,
}

/// Where one session's rows are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionLocation {
    /// `source=<source>/month=<YYYY-MM>` under `events/`.
    pub partition: String,
    pub source_path: String,
    /// Events the session had when written (decides which of two files giving the same
    /// session wins: the fuller one).
    #[serde(default)]
    pub event_count: u64,
}

/// The state of one generation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StoreState {
    pub checkpoints: BTreeMap<String, Checkpoint>,
    pub sessions: BTreeMap<String, SessionLocation>,
    /// tantivy opstamp of the master index commit that belongs to this generation.
    pub search_opstamp: u64,
    /// Whether secrets were redacted when the logs were read; a pass with the other setting
    /// re-reads every file it is given.
    #[serde(default)]
    pub redacted: bool,
    /// The version of the redaction rules the logs were read with (empty when not redacted,
    /// or written before rules were versioned); a pass with other rules re-reads every file.
    #[serde(default)]
    pub redaction_rules: String,
}

impl StoreState {
    pub fn load(generation_root: &Path) -> Result<StoreState, StoreError> {
        let path = generation_root.join(STATE_FILE);
        let text = fs::read_to_string(&path).map_err(StoreError::io(&path))?;
        serde_json::from_str(&text).map_err(|error| StoreError::CorruptState {
            path,
            message: error.to_string(),
        })
    }

    pub fn save(&self, generation_root: &Path) -> Result<(), StoreError> {
        let path = generation_root.join(STATE_FILE);
        let text = serde_json::to_string(self).map_err(|error| StoreError::CorruptState {
            path: path.clone(),
            message: error.to_string(),
        })?;
        fs::write(&path, text).map_err(StoreError::io(&path))
    }
}
