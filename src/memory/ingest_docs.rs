//! `ingest_docs`: imports project documents (markdown or text) as entries, one per file,
//! deduplicated by (source path, SHA-256 of the content): an unchanged file is a duplicate, an
//! edited one a new entry (the old one stays), a missing one is listed as skipped. Paths are
//! resolved against the project root (the server's working directory); the source path kept
//! is the one given, trimmed, with `\` as `/`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::MemoryError;
use super::entry::{MAX_TEXT_BYTES, MAX_TITLE_CHARS, content_hash, truncate_chars};

/// Imported when no sources are given.
pub const DEFAULT_SOURCES: [&str; 3] = [
    "docs/session-log.md",
    "docs/decisions.md",
    "docs/requirements.md",
];
/// The entry type of imported documents when none is given.
pub const DEFAULT_ENTRY_TYPE: &str = "ingestion";
/// Most sources one call may name.
pub const MAX_SOURCES: usize = 100;

/// What the input asks, before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IngestRequest {
    pub project: Option<String>,
    pub sources: Option<Vec<String>>,
    pub entry_type: Option<String>,
}

/// The seed's report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IngestReport {
    pub processed_sources: usize,
    pub imported_entries: usize,
    pub duplicate_entries: usize,
    pub skipped_sources: Vec<String>,
}

/// One readable source document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceDocument {
    /// The normalised path as given (the entry's `source_ref`).
    pub source_ref: String,
    pub title: String,
    pub body: String,
    pub content_hash: String,
}

impl IngestRequest {
    /// The source paths to read: the given ones, or [`DEFAULT_SOURCES`].
    pub fn source_refs(&self) -> Result<Vec<String>, MemoryError> {
        let Some(sources) = &self.sources else {
            return Ok(DEFAULT_SOURCES.iter().map(|s| (*s).to_owned()).collect());
        };
        if sources.is_empty() || sources.len() > MAX_SOURCES {
            return Err(MemoryError::invalid(
                "sources",
                format!("sources must list 1 to {MAX_SOURCES} paths"),
            )
            .with_detail("count", sources.len()));
        }
        let refs: Vec<String> = sources.iter().map(|source| normalize(source)).collect();
        if let Some(blank) = refs.iter().position(String::is_empty) {
            return Err(
                MemoryError::invalid("sources", "sources must not hold empty paths")
                    .with_detail("index", blank),
            );
        }
        Ok(refs)
    }
}

/// The path as given, trimmed, with `\` as `/`.
fn normalize(source: &str) -> String {
    source.trim().replace('\\', "/")
}

/// Reads `source_ref` under `root`; `None` when it is missing, not a regular file, not UTF-8,
/// empty or larger than an entry may be (the caller lists it as skipped).
pub fn read_source(root: &Path, source_ref: &str) -> Option<SourceDocument> {
    let path: PathBuf = root.join(source_ref);
    let metadata = std::fs::metadata(&path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_TEXT_BYTES as u64 {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let body = text.trim();
    if body.is_empty() {
        return None;
    }
    Some(SourceDocument {
        source_ref: source_ref.to_owned(),
        title: title_of(source_ref, body),
        content_hash: content_hash(body),
        body: body.to_owned(),
    })
}

/// The first `# ` heading, else the file name (at most 120 characters).
fn title_of(source_ref: &str, body: &str) -> String {
    let heading = body
        .lines()
        .map(str::trim)
        .find_map(|line| line.strip_prefix("# "))
        .map(str::trim)
        .filter(|heading| !heading.is_empty());
    let title = heading.unwrap_or_else(|| source_ref.rsplit('/').next().unwrap_or(source_ref));
    truncate_chars(title, MAX_TITLE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_come_from_the_first_heading_or_the_file_name() {
        assert_eq!(
            title_of("docs/a.md", "intro\n# Decisions \n## x"),
            "Decisions"
        );
        assert_eq!(title_of("docs/a.md", "no heading"), "a.md");
        assert_eq!(normalize("  docs\\b.md "), "docs/b.md");
    }

    #[test]
    fn sources_default_and_are_bounded() {
        assert_eq!(IngestRequest::default().source_refs().unwrap().len(), 3);
        let empty = IngestRequest {
            sources: Some(Vec::new()),
            ..IngestRequest::default()
        };
        assert!(empty.source_refs().is_err());
        let blank = IngestRequest {
            sources: Some(vec!["a.md".into(), "  ".into()]),
            ..IngestRequest::default()
        };
        assert_eq!(blank.source_refs().unwrap_err().details["index"], 1);
    }

    #[test]
    fn missing_and_empty_files_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("empty.md"), "  \n").unwrap();
        std::fs::write(dir.path().join("doc.md"), "# Title\nbody\n").unwrap();
        assert_eq!(read_source(dir.path(), "missing.md"), None);
        assert_eq!(read_source(dir.path(), "empty.md"), None);
        let document = read_source(dir.path(), "doc.md").unwrap();
        assert_eq!(document.title, "Title");
        assert_eq!(document.body, "# Title\nbody");
        assert_eq!(read_source(dir.path(), ".").map(|d| d.title), None);
    }
}
