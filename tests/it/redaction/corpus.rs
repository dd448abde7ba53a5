//! False positives on the real logs of `../shared/corpus`: what the built-in rules redact per
//! MB (bounded, by kind, reviewed), and non-secrets that must survive — git SHAs, UUIDs,
//! lockfile integrity hashes, base64 images and esker's own ids.

use std::collections::BTreeMap;
use std::path::Path;

use esker::redact::Redactor;
use esker::redact::check::{CheckFinding, check_content};
use regex::Regex;
use serde_json::Value;

use crate::support::corpus_dir;

/// Text files of the corpus (SQLite stores and binary protobufs are not read).
const TEXT_EXTENSIONS: &[&str] = &["json", "jsonl", "md", "yaml", "history", "pbtxt"];

/// Kinds seen on the corpus and the most of each allowed, after review. Every finding was
/// looked at (`ESKER_SHOW_REDACTIONS=1 cargo test --test it redaction::corpus -- --nocapture`
/// prints them); see the comment on each.
const REVIEWED_KINDS: &[(&str, usize)] = &[
    // An Auth0 access token a user pasted from a debug log (a codex prompt and its echo).
    ("jwt", 2),
    // Real values in configs and seed code: `POSTGRES_PASSWORD=psqladmin`, `PGPASSWORD=postgres`,
    // `${POSTGRES_PASSWORD:postgres}` defaults in Spring properties (edited several times),
    // docker-compose `POSTGRES_PASSWORD: azamon`, seeded users' `password: "password123"`.
    ("password", 34),
    // `"token": "g_oauth_mock_9921"` (a mock, but token-shaped: the weak-name entropy rule).
    ("secret", 1),
    // `postgresql://aburi-all:<password>@localhost` in .env files (9), and dotenvx's
    // documented `dotenv://:key_1234@dotenvx.com` examples (2).
    ("url_credential", 11),
];

/// Redactions per MB of corpus text allowed (the reviewed total is 2.3/MB).
const MAX_REDACTIONS_PER_MB: f64 = 3.0;

/// The non-secret shapes that must never be redacted, by name.
fn non_secret_patterns() -> Vec<(&'static str, Regex)> {
    [
        ("git sha", r"\b[0-9a-f]{40}\b"),
        (
            "uuid",
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
        ),
        (
            "lockfile hash",
            r"\bsha(?:1|256|384|512)-[A-Za-z0-9+/]{27,}={0,2}",
        ),
        ("hex digest", r"\b(?:sha256:|checksum = .)[0-9a-f]{64}\b"),
        (
            "base64 image",
            r"(?:data:image/[a-z+]+;base64,|^)(?:iVBORw0KGgo|/9j/|R0lGOD|UklGR)[A-Za-z0-9+/=]{40,}",
        ),
        (
            "esker id",
            r"\b(?:event:evt_|turn:turn_|session:[a-z]+-)[A-Za-z0-9_-]+",
        ),
    ]
    .into_iter()
    .map(|(name, pattern)| (name, Regex::new(pattern).expect("pattern compiles")))
    .collect()
}

/// Every string of a file with where it is: (line, JSON pointer, text).
/// Walks the content exactly as `check_content` does, so positions line up.
fn strings_of(content: &str) -> Vec<(usize, String, String)> {
    let mut strings = Vec::new();
    let is_multiline = content.trim_end().contains('\n');
    if is_multiline && let Ok(document) = serde_json::from_str::<Value>(content) {
        collect_strings(&document, 0, &mut String::new(), &mut strings);
        return strings;
    }
    for (index, line) in content.lines().enumerate() {
        match serde_json::from_str::<Value>(line) {
            Ok(value) => collect_strings(&value, index + 1, &mut String::new(), &mut strings),
            Err(_) => strings.push((index + 1, String::new(), line.to_string())),
        }
    }
    strings
}

fn collect_strings(
    value: &Value,
    line: usize,
    pointer: &mut String,
    out: &mut Vec<(usize, String, String)>,
) {
    let mut descend = |segment: &str, item: &Value, out: &mut Vec<_>| {
        let length = pointer.len();
        pointer.push('/');
        pointer.push_str(&segment.replace('~', "~0").replace('/', "~1"));
        collect_strings(item, line, pointer, out);
        pointer.truncate(length);
    };
    match value {
        Value::String(text) => out.push((line, pointer.clone(), text.clone())),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                descend(&index.to_string(), item, out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                descend(key, item, out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn text_files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| entry.into_path())
        .filter(|path| {
            path.extension()
                .and_then(|extension| extension.to_str())
                .is_some_and(|extension| TEXT_EXTENSIONS.contains(&extension))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn corpus_non_secrets_survive_and_redactions_stay_rare() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is absent");
        return;
    };
    let show = std::env::var_os("ESKER_SHOW_REDACTIONS").is_some();
    let redactor = Redactor::builtin();
    let patterns = non_secret_patterns();
    let mut bytes = 0usize;
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut non_secrets_seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut damaged = Vec::new();
    for file in text_files(&corpus) {
        let content = String::from_utf8_lossy(&std::fs::read(&file).expect("read")).into_owned();
        bytes += content.len();
        let findings = check_content(&redactor, &content);
        let mut at: BTreeMap<(usize, String), Vec<&CheckFinding>> = BTreeMap::new();
        for finding in &findings {
            *by_kind.entry(finding.kind.clone()).or_default() += 1;
            at.entry((finding.line, finding.pointer.clone()))
                .or_default()
                .push(finding);
        }
        for (line, pointer, text) in strings_of(&content) {
            let here = at.get(&(line, pointer.clone()));
            if show && let Some(found) = here {
                for finding in found {
                    let shown = text
                        .get(finding.start.saturating_sub(30)..(finding.end + 10).min(text.len()))
                        .unwrap_or_default();
                    eprintln!("{}: {finding}: …{shown:?}…", file.display());
                }
            }
            for (name, pattern) in &patterns {
                for candidate in pattern.find_iter(&text) {
                    *non_secrets_seen.entry(name).or_default() += 1;
                    let overlaps = here.is_some_and(|found| {
                        found
                            .iter()
                            .any(|f| f.start < candidate.end() && candidate.start() < f.end)
                    });
                    if overlaps {
                        damaged.push(format!("{}: line {line} {pointer}: {name}", file.display()));
                    }
                }
            }
        }
    }
    let total: usize = by_kind.values().sum();
    let per_mb = total as f64 / (bytes as f64 / 1e6);
    eprintln!(
        "corpus: {:.1} MB, {total} redactions ({per_mb:.2}/MB): {by_kind:?}; non-secrets checked: {non_secrets_seen:?}",
        bytes as f64 / 1e6
    );
    assert!(
        damaged.is_empty(),
        "non-secrets redacted:\n{}",
        damaged.join("\n")
    );
    assert!(non_secrets_seen.get("git sha").copied().unwrap_or(0) > 10);
    assert!(non_secrets_seen.get("uuid").copied().unwrap_or(0) > 1000);
    assert!(non_secrets_seen.get("base64 image").copied().unwrap_or(0) > 0);
    assert!(
        per_mb <= MAX_REDACTIONS_PER_MB,
        "{per_mb:.2} redactions per MB"
    );
    for (kind, count) in &by_kind {
        let allowed = REVIEWED_KINDS
            .iter()
            .find(|(reviewed, _)| reviewed == kind)
            .map_or(0, |(_, most)| *most);
        assert!(
            *count <= allowed,
            "{count} {kind} redactions (reviewed: {allowed})"
        );
    }
}
