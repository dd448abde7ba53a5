//! `esker redact --check FILE...`: what redaction would replace in log files, as kinds and
//! positions only (never the values), for auditing before indexing.
//!
//! A file that is one JSON document (Gemini CLI sessions) is walked whole; otherwise each line
//! that parses as JSON is walked (JSONL logs), and any other line is scanned as text. A
//! position is the line, the JSON pointer of the string, and the byte range inside it.

use std::fmt;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

use super::{Redactor, assignment};

/// One thing redaction would replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFinding {
    /// 1-based line of a JSONL or text file; 0 for a whole-file JSON document.
    pub line: usize,
    /// JSON pointer of the string (`/message/content/0/text`); empty for a text line.
    pub pointer: String,
    /// Byte range inside that string (or line).
    pub start: usize,
    pub end: usize,
    pub kind: String,
}

impl fmt::Display for CheckFinding {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(text)"
        } else {
            &self.pointer
        };
        write!(
            formatter,
            "line {} {} bytes {}..{}: {}",
            self.line, pointer, self.start, self.end, self.kind
        )
    }
}

/// Every finding in one file's content.
pub fn check_content(redactor: &Redactor, content: &str) -> Vec<CheckFinding> {
    let mut findings = Vec::new();
    let is_multiline = content.trim_end().contains('\n');
    if is_multiline && let Ok(document) = serde_json::from_str::<Value>(content) {
        walk(redactor, &document, 0, &mut String::new(), &mut findings);
        return findings;
    }
    for (index, line) in content.lines().enumerate() {
        let number = index + 1;
        match serde_json::from_str::<Value>(line) {
            Ok(value) => walk(redactor, &value, number, &mut String::new(), &mut findings),
            Err(_) => push_text(redactor, line, number, "", &mut findings),
        }
    }
    findings
}

/// Checks each file, printing one line per finding (`FILE: line N POINTER bytes A..B: KIND`)
/// to `out`; returns how many were found. Unreadable files are reported on stderr and
/// counted in `unreadable`.
pub fn check_files(
    redactor: &Redactor,
    files: &[&Path],
    out: &mut impl Write,
    unreadable: &mut usize,
) -> std::io::Result<usize> {
    let mut total = 0;
    for file in files {
        let content = match std::fs::read(file) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(error) => {
                eprintln!("esker redact: cannot read {}: {error}", file.display());
                *unreadable += 1;
                continue;
            }
        };
        for finding in check_content(redactor, &content) {
            writeln!(out, "{}: {finding}", file.display())?;
            total += 1;
        }
    }
    Ok(total)
}

fn walk(
    redactor: &Redactor,
    value: &Value,
    line: usize,
    pointer: &mut String,
    findings: &mut Vec<CheckFinding>,
) {
    match value {
        Value::String(text) => push_text(redactor, text, line, pointer, findings),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                descend(redactor, item, line, pointer, &index.to_string(), findings);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let before = findings.len();
                descend(redactor, item, line, pointer, key, findings);
                if let Value::String(text) = item
                    && findings.len() == before
                    && let Some(kind) = assignment::object_entry_kind(key, text)
                {
                    findings.push(CheckFinding {
                        line,
                        pointer: format!("{pointer}/{}", escape_pointer(key)),
                        start: 0,
                        end: text.len(),
                        kind: kind.name().to_string(),
                    });
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn descend(
    redactor: &Redactor,
    item: &Value,
    line: usize,
    pointer: &mut String,
    segment: &str,
    findings: &mut Vec<CheckFinding>,
) {
    let length = pointer.len();
    pointer.push('/');
    pointer.push_str(&escape_pointer(segment));
    walk(redactor, item, line, pointer, findings);
    pointer.truncate(length);
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn push_text(
    redactor: &Redactor,
    text: &str,
    line: usize,
    pointer: &str,
    findings: &mut Vec<CheckFinding>,
) {
    findings.extend(redactor.find(text).into_iter().map(|found| CheckFinding {
        line,
        pointer: pointer.to_string(),
        start: found.start,
        end: found.end,
        kind: found.kind.to_string(),
    }));
}
