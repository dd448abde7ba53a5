//! Redaction rules as data, in gitleaks' TOML rule format: parsing, compiling (once) and
//! matching one rule against a text.
//!
//! Supported per rule: `id`, `regex` (RE2 syntax, matched with ASCII semantics like Go's
//! `\b`/`\s`), `secretGroup` (else the first non-empty group, else the whole match),
//! `entropy` (minimum Shannon entropy of the secret), `keywords` (the prefilter: a rule runs
//! only on text containing one, any case), `skipReport`, and allowlists (`[rules.allowlist]`,
//! `[[rules.allowlists]]`, global `[allowlist]`/`[[allowlists]]`) with `regexes`, `stopwords`,
//! `regexTarget` (`secret`, `match`, `line`) and `condition` (`OR`, `AND`). Allowlist `paths`
//! and `commits` do not apply to log text and are ignored, as are rules with only a `path`;
//! every other field (`description`, `tags`, `[extend]`) is read and ignored. A rule whose
//! regex does not compile is skipped and reported, never fatal.

use std::path::{Path, PathBuf};

use regex::bytes::{Regex, RegexBuilder};
use serde::Deserialize;

/// Compiled-regex size budget: gitleaks' largest rules (generic-api-key) need a few MB.
const REGEX_SIZE_LIMIT: usize = 64 << 20;

/// A rule file that cannot be used at all.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("cannot read rules file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("rules file {origin} is not valid gitleaks TOML: {message}")]
    Parse { origin: String, message: String },
}

/// A rule left out of a rule set, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedRule {
    pub id: String,
    pub reason: String,
}

#[derive(Debug, Default, Deserialize)]
struct RuleFile {
    #[serde(default)]
    rules: Vec<RuleSpec>,
    allowlist: Option<AllowlistSpec>,
    #[serde(default)]
    allowlists: Vec<AllowlistSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RuleSpec {
    id: String,
    regex: Option<String>,
    #[serde(default)]
    secret_group: usize,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    skip_report: bool,
    allowlist: Option<AllowlistSpec>,
    #[serde(default)]
    allowlists: Vec<AllowlistSpec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AllowlistSpec {
    condition: Option<String>,
    regex_target: Option<String>,
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
}

/// One compiled rule.
#[derive(Debug)]
pub struct Rule {
    pub id: String,
    /// The marker name: the id in snake case (`github-pat` → `github_pat`).
    pub kind: String,
    pub keywords: Vec<String>,
    regex: Regex,
    secret_group: usize,
    entropy: Option<f64>,
    allowlists: Vec<Allowlist>,
}

/// What an allowlist regex is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RegexTarget {
    Secret,
    Match,
    Line,
}

#[derive(Debug)]
struct Allowlist {
    require_all: bool,
    target: RegexTarget,
    regexes: Vec<Regex>,
    /// Lowercase; a secret containing one is allowed.
    stopwords: Vec<String>,
}

/// A secret one rule found: byte ranges of the text it was matched in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMatch {
    pub secret: std::ops::Range<usize>,
}

/// An ordered list of compiled rules plus the global allowlists.
#[derive(Debug, Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    global_allowlists: Vec<Allowlist>,
    pub skipped: Vec<SkippedRule>,
}

impl RuleSet {
    /// Parses and compiles a gitleaks-format TOML document; `origin` names it in errors.
    pub fn parse(toml_text: &str, origin: &str) -> Result<RuleSet, RulesError> {
        let file: RuleFile = toml::from_str(toml_text).map_err(|error| RulesError::Parse {
            origin: origin.to_string(),
            message: error.to_string(),
        })?;
        let mut set = RuleSet::default();
        let global = file.allowlist.into_iter().chain(file.allowlists);
        for spec in global {
            match compile_allowlist(spec) {
                Ok(allowlist) => set.global_allowlists.push(allowlist),
                Err(reason) => set.skipped.push(SkippedRule {
                    id: "(global allowlist)".to_string(),
                    reason,
                }),
            }
        }
        for spec in file.rules {
            let id = spec.id.clone();
            match compile_rule(spec) {
                Ok(Some(rule)) => set.rules.push(rule),
                Ok(None) => {}
                Err(reason) => set.skipped.push(SkippedRule { id, reason }),
            }
        }
        Ok(set)
    }

    /// Reads and compiles a rules file.
    pub fn load(path: &Path) -> Result<RuleSet, RulesError> {
        let text = std::fs::read_to_string(path).map_err(|source| RulesError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        RuleSet::parse(&text, &path.display().to_string())
    }

    /// Adds `other`'s rules; one with the id of an existing rule replaces it (as gitleaks'
    /// `[extend]` does).
    pub fn extend(&mut self, other: RuleSet) {
        for rule in other.rules {
            match self
                .rules
                .iter_mut()
                .find(|existing| existing.id == rule.id)
            {
                Some(existing) => *existing = rule,
                None => self.rules.push(rule),
            }
        }
        self.global_allowlists.extend(other.global_allowlists);
        self.skipped.extend(other.skipped);
    }

    /// Every secret rule `index` finds in `haystack` (the scan view of the text).
    pub fn find(&self, index: usize, haystack: &[u8], on_match: impl FnMut(RuleMatch)) {
        let rule = &self.rules[index];
        rule.find(haystack, &self.global_allowlists, on_match);
    }
}

impl Rule {
    fn find(&self, haystack: &[u8], global: &[Allowlist], mut on_match: impl FnMut(RuleMatch)) {
        for captures in self.regex.captures_iter(haystack) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            let secret = secret_of(&captures, self.secret_group).unwrap_or(whole);
            if secret.is_empty() {
                continue;
            }
            let entropy_ok = self
                .entropy
                .is_none_or(|minimum| shannon_entropy(secret.as_bytes()) >= minimum);
            let spans = MatchSpans {
                haystack,
                secret: secret.range(),
                whole: whole.range(),
            };
            let allowed = self
                .allowlists
                .iter()
                .chain(global)
                .any(|allowlist| allowlist.allows(&spans));
            if entropy_ok && !allowed {
                on_match(RuleMatch {
                    secret: secret.range(),
                });
            }
        }
    }
}

/// gitleaks' choice of secret: `secretGroup` when set, else the first non-empty group.
fn secret_of<'h>(
    captures: &regex::bytes::Captures<'h>,
    secret_group: usize,
) -> Option<regex::bytes::Match<'h>> {
    if secret_group > 0 {
        return captures.get(secret_group);
    }
    captures
        .iter()
        .skip(1)
        .flatten()
        .find(|group| !group.is_empty())
}

struct MatchSpans<'h> {
    haystack: &'h [u8],
    secret: std::ops::Range<usize>,
    whole: std::ops::Range<usize>,
}

impl MatchSpans<'_> {
    fn line(&self) -> &[u8] {
        let start = self.haystack[..self.whole.start]
            .iter()
            .rposition(|byte| *byte == b'\n')
            .map_or(0, |offset| offset + 1);
        let end = self.haystack[self.whole.end..]
            .iter()
            .position(|byte| *byte == b'\n')
            .map_or(self.haystack.len(), |offset| self.whole.end + offset);
        &self.haystack[start..end]
    }
}

impl Allowlist {
    fn allows(&self, spans: &MatchSpans<'_>) -> bool {
        let target = match self.target {
            RegexTarget::Secret => &spans.haystack[spans.secret.clone()],
            RegexTarget::Match => &spans.haystack[spans.whole.clone()],
            RegexTarget::Line => spans.line(),
        };
        let secret = String::from_utf8_lossy(&spans.haystack[spans.secret.clone()]).to_lowercase();
        let mut checks = Vec::with_capacity(2);
        if !self.regexes.is_empty() {
            checks.push(self.regexes.iter().any(|regex| regex.is_match(target)));
        }
        if !self.stopwords.is_empty() {
            checks.push(self.stopwords.iter().any(|word| secret.contains(word)));
        }
        if self.require_all {
            !checks.is_empty() && checks.iter().all(|passed| *passed)
        } else {
            checks.iter().any(|passed| *passed)
        }
    }
}

fn compile_rule(spec: RuleSpec) -> Result<Option<Rule>, String> {
    let Some(pattern) = spec.regex.as_deref() else {
        return Ok(None);
    };
    if spec.skip_report {
        return Ok(None);
    }
    let regex = compile_regex(pattern)?;
    let allowlists = spec
        .allowlist
        .into_iter()
        .chain(spec.allowlists)
        .map(compile_allowlist)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(Rule {
        kind: spec.id.replace(['-', '.', ' '], "_").to_ascii_lowercase(),
        id: spec.id,
        keywords: spec
            .keywords
            .iter()
            .map(|keyword| keyword.to_ascii_lowercase())
            .filter(|keyword| !keyword.is_empty())
            .collect(),
        regex,
        secret_group: spec.secret_group,
        entropy: spec.entropy,
        allowlists,
    }))
}

fn compile_allowlist(spec: AllowlistSpec) -> Result<Allowlist, String> {
    let target = match spec.regex_target.as_deref() {
        None | Some("secret") => RegexTarget::Secret,
        Some("match") => RegexTarget::Match,
        Some("line") => RegexTarget::Line,
        Some(other) => return Err(format!("unknown allowlist regexTarget {other:?}")),
    };
    Ok(Allowlist {
        require_all: spec
            .condition
            .is_some_and(|condition| condition.eq_ignore_ascii_case("and")),
        target,
        regexes: spec
            .regexes
            .iter()
            .map(|pattern| compile_regex(pattern))
            .collect::<Result<_, _>>()?,
        stopwords: spec
            .stopwords
            .iter()
            .map(|word| word.to_lowercase())
            .collect(),
    })
}

/// RE2 patterns as Go runs them: ASCII `\b`, `\w`, `\s` and case folding, and a `{` that
/// starts no repetition taken literally (see [`escape_literal_braces`]).
fn compile_regex(pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(&escape_literal_braces(pattern))
        .unicode(false)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|error| format!("regex does not compile: {error}"))
}

/// RE2 reads `{` as a literal unless it starts a repetition (`{2}`, `{2,}`, `{2,5}`); Rust's
/// regex rejects it (`\$?{{[^}]+}}` in gitleaks' rules), so such braces are escaped.
pub(super) fn escape_literal_braces(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut index = 0;
    while index < chars.len() {
        let character = chars[index];
        match character {
            '\\' => {
                out.push(character);
                if let Some(next) = chars.get(index + 1) {
                    out.push(*next);
                }
                index += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '{' if !in_class && !starts_repetition(&chars[index..]) => out.push('\\'),
            _ => {}
        }
        out.push(character);
        index += 1;
    }
    out
}

/// `{n}`, `{n,}` or `{n,m}` at the start of `chars`.
fn starts_repetition(chars: &[char]) -> bool {
    let Some(close) = chars.iter().position(|c| *c == '}') else {
        return false;
    };
    let inside: String = chars[1..close].iter().collect();
    let mut bounds = inside.splitn(2, ',');
    let low = bounds.next().unwrap_or_default();
    let high = bounds.next();
    !low.is_empty()
        && low.chars().all(|c| c.is_ascii_digit())
        && high.is_none_or(|high| high.chars().all(|c| c.is_ascii_digit()))
}

/// Shannon entropy in bits per byte.
pub(super) fn shannon_entropy(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for byte in bytes {
        counts[*byte as usize] += 1;
    }
    let total = bytes.len() as f64;
    counts
        .iter()
        .filter(|count| **count > 0)
        .map(|count| {
            let share = f64::from(*count) / total;
            -share * share.log2()
        })
        .sum()
}
