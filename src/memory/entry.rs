//! A memory entry and how a request becomes one: trimming, the seed's defaults and length
//! limits, the title drawn from the text, the id and the content hash.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::MemoryError;

/// Longest title, in characters (longer ones are cut).
pub const MAX_TITLE_CHARS: usize = 120;
/// Longest project and entry type, in characters (longer ones are cut).
pub const MAX_SHORT_FIELD_CHARS: usize = 64;
/// Largest text accepted, in bytes: a note, not a file dump.
pub const MAX_TEXT_BYTES: usize = 1 << 20;
/// Largest metadata object accepted, as JSON bytes.
pub const MAX_METADATA_BYTES: usize = 64 << 10;
/// The entry type of `save_memory` when none is given.
pub const DEFAULT_ENTRY_TYPE: &str = "note";

/// One stored entry, as the journal holds it (one JSON line) and every table and index
/// presents it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryEntry {
    pub id: String,
    pub title: String,
    pub body: String,
    pub entry_type: String,
    pub project: String,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub source_ref: Option<String>,
    #[serde(default)]
    pub content_hash: Option<String>,
    #[serde(default)]
    pub metadata: Map<String, Value>,
    pub created_at: DateTime<Utc>,
}

impl MemoryEntry {
    /// `created_at` as the tools print it (RFC 3339, milliseconds, `Z`).
    pub fn created_at_text(&self) -> String {
        format_time(self.created_at)
    }

    /// The metadata object as JSON text.
    pub fn metadata_json(&self) -> String {
        Value::Object(self.metadata.clone()).to_string()
    }
}

/// RFC 3339 with milliseconds and `Z`, like JavaScript's `toISOString`.
pub fn format_time(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// What a caller asks to save, before normalisation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Draft {
    pub text: String,
    pub title: Option<String>,
    pub project: Option<String>,
    pub entry_type: Option<String>,
    pub source_ref: Option<String>,
    pub session_id: Option<String>,
    pub metadata: Option<Map<String, Value>>,
}

impl Draft {
    /// The entry this draft becomes, or `INVALID_ARGUMENT` (empty or oversized text or
    /// metadata). `default_project` applies when the draft names none.
    pub fn normalize(
        self,
        default_project: &str,
        default_type: &str,
        created_at: DateTime<Utc>,
    ) -> Result<MemoryEntry, MemoryError> {
        let body = self.text.trim();
        if body.is_empty() {
            return Err(MemoryError::invalid("text", "text is required"));
        }
        if body.len() > MAX_TEXT_BYTES {
            return Err(MemoryError::invalid(
                "text",
                format!("text exceeds {MAX_TEXT_BYTES} bytes"),
            )
            .with_detail("bytes", body.len()));
        }
        let metadata = self.metadata.unwrap_or_default();
        let metadata_bytes = Value::Object(metadata.clone()).to_string().len();
        if metadata_bytes > MAX_METADATA_BYTES {
            return Err(MemoryError::invalid(
                "metadata",
                format!("metadata exceeds {MAX_METADATA_BYTES} bytes as JSON"),
            )
            .with_detail("bytes", metadata_bytes));
        }
        let title = non_empty(self.title.as_deref())
            .map(|title| truncate_chars(title, MAX_TITLE_CHARS))
            .unwrap_or_else(|| title_from_text(body));
        Ok(MemoryEntry {
            id: uuid::Uuid::new_v4().to_string(),
            title,
            body: body.to_owned(),
            entry_type: short_field(self.entry_type.as_deref(), default_type),
            project: short_field(self.project.as_deref(), default_project),
            session_id: non_empty(self.session_id.as_deref()).map(str::to_owned),
            source_ref: non_empty(self.source_ref.as_deref()).map(str::to_owned),
            content_hash: Some(content_hash(body)),
            metadata,
            created_at,
        })
    }
}

/// The trimmed value when it is not empty.
fn non_empty(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|value| !value.is_empty())
}

/// A project or entry type: trimmed, at most [`MAX_SHORT_FIELD_CHARS`], else `fallback`.
fn short_field(value: Option<&str>, fallback: &str) -> String {
    non_empty(value)
        .map(|value| truncate_chars(value, MAX_SHORT_FIELD_CHARS))
        .unwrap_or_else(|| fallback.to_owned())
}

/// The first non-blank line of the text, at most [`MAX_TITLE_CHARS`].
pub fn title_from_text(text: &str) -> String {
    let first_line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    truncate_chars(first_line, MAX_TITLE_CHARS)
}

/// The first `max` characters of `text` (never splits a character).
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}

/// SHA-256 of `text` as lowercase hex.
pub fn content_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(text: &str) -> Draft {
        Draft {
            text: text.to_owned(),
            ..Draft::default()
        }
    }

    #[test]
    fn defaults_titles_and_trimming_follow_the_seed() {
        let now = Utc::now();
        let entry = draft("  \n  Use Parquet for memories\nbecause DuckDB reads it  ")
            .normalize("esker", DEFAULT_ENTRY_TYPE, now)
            .unwrap();
        assert_eq!(entry.title, "Use Parquet for memories");
        assert_eq!(
            entry.body,
            "Use Parquet for memories\nbecause DuckDB reads it"
        );
        assert_eq!(entry.project, "esker");
        assert_eq!(entry.entry_type, "note");
        assert_eq!(entry.session_id, None);
        assert_eq!(
            entry.content_hash.as_deref(),
            Some(&*content_hash(&entry.body))
        );
        assert_eq!(
            uuid::Uuid::parse_str(&entry.id).unwrap().get_version_num(),
            4
        );

        let long = "é".repeat(300);
        let entry = Draft {
            title: Some(format!("  {long}  ")),
            project: Some(" p ".repeat(40)),
            entry_type: Some("   ".into()),
            ..draft("x")
        }
        .normalize("d", DEFAULT_ENTRY_TYPE, now)
        .unwrap();
        assert_eq!(entry.title.chars().count(), MAX_TITLE_CHARS);
        assert_eq!(entry.project.chars().count(), MAX_SHORT_FIELD_CHARS);
        assert_eq!(entry.entry_type, "note");
    }

    #[test]
    fn empty_and_oversized_input_is_invalid() {
        let now = Utc::now();
        let empty = draft(" \n\t ").normalize("p", "note", now).unwrap_err();
        assert_eq!(empty.message, "text is required");
        let huge = draft(&"x".repeat(MAX_TEXT_BYTES + 1))
            .normalize("p", "note", now)
            .unwrap_err();
        assert_eq!(huge.details["field"], "text");
    }

    #[test]
    fn the_content_hash_is_sha256_hex() {
        assert_eq!(
            content_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
