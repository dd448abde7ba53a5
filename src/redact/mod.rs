//! Secret redaction at ingest: finds credentials in log text and replaces them with `[REDACTED:<kind>]`.
//!
//! Entry points are [`redact_text`] (one string) and [`redact_value`] (every string leaf of a
//! JSON value, in place; object keys are never changed, but a secret-looking key marks its
//! string value), both with the built-in rules; a [`Redactor`] built with extra rules does the
//! same with those. Detection has two layers:
//!
//! * **Rules as data** (`rules.rs`, the files in `rules/`): provider tokens in gitleaks' TOML
//!   rule format — keywords, regex, secret group, entropy, allowlists. esker writes its own
//!   rules in that format (gitleaks' `config/gitleaks.toml` is the reference for which
//!   providers and token shapes exist; it is not copied); `esker index --rules FILE` adds a
//!   gitleaks-format file at run time, e.g. the official `gitleaks.toml`. The marker kind is
//!   the rule id in snake case (`github-token` → `[REDACTED:github_token]`).
//! * **Contextual detectors** anchored at a trigger word: PEM private key blocks (`context.rs`),
//!   `Bearer <token>`, `scheme://user:password@host`, assignments to secret-looking names in
//!   JSON, YAML, env files and debug prints with a generic high-entropy rule for weak names
//!   (`assignment.rs`), and JWTs wrapped over line breaks (`wrapped.rs`); `detectors.rs` lists
//!   them, each with its trigger literals.
//!
//! Overlapping findings merge into one replacement whose kind is the most specific finding
//! starting first (rules, then bearer/URL, then assignments), so `API_KEY=sk-…` becomes
//! `API_KEY=[REDACTED:openai_api_key]`. Redaction is idempotent: markers match no rule.
//!
//! Cost: one Aho-Corasick pass finds every trigger and rule keyword; only rules whose keyword
//! occurs run their regex (compiled once, when the redactor is built), and contextual checks
//! are anchored at their hit and usually reject it after a few bytes.

mod assignment;
pub mod check;
mod context;
mod detectors;
mod kind;
mod rules;
mod scan;
mod wrapped;

#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::{Arc, LazyLock};

use serde_json::Value;

pub use kind::{Finding, SecretKind};
pub use rules::{RuleSet, RulesError, SkippedRule};

use detectors::DETECTORS;
use scan::{Hits, Prefilter};

/// Prefix of every replacement marker.
const MARKER_PREFIX: &str = "[REDACTED:";

/// Strings shorter than this cannot hold any detectable secret (`pwd=abcd`).
const MIN_SECRET_TEXT_LEN: usize = 8;

/// Texts shorter than this hold no built-in rule match (the shortest, `xoxb-` plus 10, is 15
/// bytes; `examples.toml` checks every example is at least this long).
const MIN_TOKEN_LEN: usize = 15;

/// Rescans of a redacted text (each finds what a previous replacement exposed).
const MAX_REDACTION_ROUNDS: usize = 4;

/// Bumped whenever detection changes in code (not in rule data, which is hashed): a store
/// redacted by another version is re-read on the next `esker index`.
const ENGINE_VERSION: u32 = 2;

/// The built-in rule files, in priority order (earlier rules win ties at the same start).
pub const BUILTIN_RULE_FILES: &[(&str, &str)] = &[
    ("rules/providers.toml", include_str!("rules/providers.toml")),
    ("rules/ai.toml", include_str!("rules/ai.toml")),
];

/// A compiled rule set with its keyword prefilter.
pub struct Redactor {
    rules: RuleSet,
    prefilter: Prefilter,
    version: String,
    /// [`MIN_TOKEN_LEN`] for the built-in rules; rules from a file may match less.
    min_token_len: usize,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Redactor")
            .field("rules", &self.rules.rules.len())
            .field("version", &self.version)
            .finish()
    }
}

static BUILTIN: LazyLock<Arc<Redactor>> = LazyLock::new(|| {
    Arc::new(Redactor::from_sources(&[]).expect("built-in rule files are valid TOML"))
});

impl Redactor {
    /// The redactor with esker's built-in rules (compiled on first use, shared).
    pub fn builtin() -> Arc<Redactor> {
        Arc::clone(&BUILTIN)
    }

    /// The built-in rules plus a gitleaks-format rules file (a rule with a built-in id
    /// replaces it). Rules that do not compile are left out: see [`Redactor::skipped`].
    pub fn with_rules_file(path: &Path) -> Result<Redactor, RulesError> {
        let text = std::fs::read_to_string(path).map_err(|source| RulesError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Redactor::from_sources(&[(&path.display().to_string(), &text)])
    }

    fn from_sources(extra: &[(&str, &str)]) -> Result<Redactor, RulesError> {
        let mut rules = RuleSet::default();
        let mut fingerprint: Vec<&[u8]> = Vec::new();
        for (origin, text) in BUILTIN_RULE_FILES.iter().chain(extra) {
            rules.extend(RuleSet::parse(text, origin)?);
            fingerprint.push(text.as_bytes());
        }
        let prefilter = Prefilter::build(&rules);
        let engine = ENGINE_VERSION.to_string();
        fingerprint.push(engine.as_bytes());
        let hash = crate::ids::stable_hash_hex(&fingerprint);
        Ok(Redactor {
            rules,
            prefilter,
            version: format!("v{ENGINE_VERSION}-{}", &hash[..16]),
            min_token_len: if extra.is_empty() {
                MIN_TOKEN_LEN
            } else {
                MIN_SECRET_TEXT_LEN
            },
        })
    }

    /// Identifies the rule set and detection code; recorded in the store so a change
    /// re-redacts every file on the next pass.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Rules of the loaded files that were left out, and why.
    pub fn skipped(&self) -> &[SkippedRule] {
        &self.rules.skipped
    }

    /// Number of compiled rules.
    pub fn rule_count(&self) -> usize {
        self.rules.rules.len()
    }

    /// The ids of the compiled rules, in priority order.
    pub fn rule_ids(&self) -> impl Iterator<Item = &str> {
        self.rules.rules.iter().map(|rule| rule.id.as_str())
    }

    /// Every finding in `text`, sorted and merged (what would be replaced).
    pub fn find<'r>(&'r self, text: &str) -> Vec<Finding<'r>> {
        if cannot_hold_secret(text, self.min_token_len) {
            return Vec::new();
        }
        let hits = self.prefilter.scan(text);
        if hits.triggers.is_empty() && hits.rules.is_empty() {
            return Vec::new();
        }
        let mut findings = Vec::new();
        self.find_by_rules(text, &hits, &mut findings);
        find_contextual(text, &hits, &mut findings);
        merge_overlapping(findings)
    }

    /// Returns the redacted text and the number of secrets replaced, or `None` when nothing
    /// was found (the fast path: no allocation).
    ///
    /// A replacement can give a neighbour the boundary its rule needs (`…As3-----BEGIN` ends a
    /// token only once the PEM block is a marker), so the output is scanned again until
    /// nothing more is found: redaction is idempotent.
    pub fn redact_text(&self, text: &str) -> Option<(String, usize)> {
        let findings = self.find(text);
        if findings.is_empty() {
            return None;
        }
        let mut count = findings.len();
        let mut out = apply_findings(text, &findings);
        for _ in 0..MAX_REDACTION_ROUNDS {
            let more = self.find(&out);
            if more.is_empty() {
                break;
            }
            count += more.len();
            out = apply_findings(&out, &more);
        }
        Some((out, count))
    }

    /// Redacts every string leaf of a JSON value in place; returns the number of secrets
    /// replaced. A string that holds no finding itself is replaced whole when its object key
    /// names a secret and it looks like one (`{"api_key": "…"}`).
    pub fn redact_value(&self, value: &mut Value) -> usize {
        match value {
            Value::String(text) => self.redact_string(text),
            Value::Array(items) => items.iter_mut().map(|item| self.redact_value(item)).sum(),
            Value::Object(map) => map
                .iter_mut()
                .map(|(key, item)| match item {
                    Value::String(text) => self.redact_entry(key, text),
                    _ => self.redact_value(item),
                })
                .sum(),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
    }

    fn redact_string(&self, text: &mut String) -> usize {
        match self.redact_text(text) {
            Some((redacted, count)) => {
                *text = redacted;
                count
            }
            None => 0,
        }
    }

    fn redact_entry(&self, key: &str, text: &mut String) -> usize {
        let found = self.redact_string(text);
        if found > 0 {
            return found;
        }
        match assignment::object_entry_kind(key, text) {
            Some(kind) => {
                *text = format!("{MARKER_PREFIX}{}]", kind.name());
                1
            }
            None => 0,
        }
    }

    fn find_by_rules<'r>(&'r self, text: &str, hits: &Hits, findings: &mut Vec<Finding<'r>>) {
        if hits.rules.is_empty() {
            return;
        }
        let view = scan::scan_view(text);
        for &index in &hits.rules {
            let kind = self.rules.rules[index].kind.as_str();
            self.rules.find(index, &view, |found| {
                let (start, end) = char_aligned(text, found.secret.start, found.secret.end);
                findings.push(Finding {
                    start,
                    end,
                    kind,
                    rank: 0,
                });
            });
        }
    }
}

/// Cheap rejection of short strings (ids, enum-like values) before any scan: no rule matches
/// fewer than `min_token_len` bytes, and shorter texts can only hold an assignment or URL
/// credential, which need a `:` or `=`.
fn cannot_hold_secret(text: &str, min_token_len: usize) -> bool {
    text.len() < MIN_SECRET_TEXT_LEN
        || (text.len() < min_token_len && !text.bytes().any(|byte| byte == b':' || byte == b'='))
}

/// The contextual detectors at their triggers. A detector's hits inside what it already
/// examined (a PEM block, an assignment's value) are skipped, which keeps adversarial input
/// (`pwd=pwd=pwd=…`, repeated BEGIN lines) linear.
fn find_contextual(text: &str, hits: &Hits, findings: &mut Vec<Finding<'_>>) {
    let mut examined_up_to = [0; DETECTORS.len()];
    for (hit, detector) in &hits.triggers {
        if hit.start < examined_up_to[*detector] {
            continue;
        }
        if let Some(end) = (DETECTORS[*detector].examine)(text, hit.clone(), findings) {
            examined_up_to[*detector] = end;
        }
    }
}

/// Widens a byte range to character boundaries (rules match bytes).
fn char_aligned(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

/// Sorts findings by start (the most specific kind first on ties, then detection order)
/// and merges overlapping ones, keeping the kind of the first.
fn merge_overlapping(mut findings: Vec<Finding<'_>>) -> Vec<Finding<'_>> {
    findings.sort_by_key(|finding| (finding.start, finding.rank));
    let mut merged: Vec<Finding<'_>> = Vec::with_capacity(findings.len());
    for finding in findings {
        match merged.last_mut() {
            Some(last) if finding.start < last.end => last.end = last.end.max(finding.end),
            _ => merged.push(finding),
        }
    }
    merged
}

/// Builds the output text with every finding replaced by its marker.
fn apply_findings(text: &str, findings: &[Finding<'_>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied_up_to = 0;
    for finding in findings {
        out.push_str(&text[copied_up_to..finding.start]);
        out.push_str(MARKER_PREFIX);
        out.push_str(finding.kind);
        out.push(']');
        copied_up_to = finding.end;
    }
    out.push_str(&text[copied_up_to..]);
    out
}

/// [`Redactor::redact_text`] with the built-in rules.
pub fn redact_text(text: &str) -> Option<(String, usize)> {
    BUILTIN.redact_text(text)
}

/// [`Redactor::redact_value`] with the built-in rules.
pub fn redact_value(value: &mut Value) -> usize {
    BUILTIN.redact_value(value)
}
