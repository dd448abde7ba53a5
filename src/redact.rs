//! Secret redaction at ingest: finds credentials in log text and replaces them with `[REDACTED:<kind>]`.
//!
//! Entry points are [`redact_text`] (one string) and [`redact_value`] (every
//! string leaf of a JSON value, in place; object keys are never changed).
//! Detection is a fixed set of rules:
//!
//! * **Token rules** — provider tokens with a distinctive prefix, replaced
//!   whole: AWS access key ids (`AKIA`/`ASIA`/`ABIA`/`ACCA` + 16), GitHub
//!   (`gh[pousr]_…`, `github_pat_…`), GitLab (`glpat-`, `gldt-`, `glrt-`,
//!   `glptt-`), Anthropic (`sk-ant-api03-…`, also admin/OAuth `oat`/`ort`),
//!   OpenAI (`sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`), Google
//!   (`AIza…`), Slack tokens (`xox[abposre]-…`) and webhooks
//!   (`https://hooks.slack.com/services/…`), Stripe live keys (`sk_live_`,
//!   `rk_live_`), npm (`npm_…`), Hugging Face (`hf_…`) and JWTs
//!   (`eyJ….eyJ….…`). A token must not be glued to a word on either side
//!   (so `task-…` is not an `sk-` key), except that a JSON escape such as
//!   `\n` or `\u003d` right before it counts as a boundary (tool arguments
//!   are often JSON encoded inside a JSON string).
//! * **PEM private keys** — from `-----BEGIN … PRIVATE KEY-----` to the end
//!   of the following `-----END …-----`; a BEGIN without END is redacted to
//!   the end of the text. Works with real newlines and with escaped `\n`.
//! * **Bearer tokens** — `Bearer <token>` (any case) keeps `Bearer ` and
//!   redacts the token: ≥ 16 characters of `[A-Za-z0-9._~+/=-]` containing a
//!   digit, or ≥ 32 with both upper and lower case letters, so prose such as
//!   "bearer authentication-mechanism" is kept.
//! * **URL credentials** — `scheme://user:password@host` (user may be empty)
//!   redacts the password.
//! * **Assignments** — `<key><sep><value>` where the key contains password,
//!   passwd, pwd, secret, api_key, private_key, access_token, auth_token,
//!   refresh_token or session_token (any case; `_`, `-` or nothing between the
//!   words), optionally followed by `key`/`access_key`/`key_base`/`token`/
//!   `value`/`str`/`string` (so `SECRET_ACCESS_KEY` counts but
//!   `password_field` does not).
//!   The separator is `=`, `:`, `:=` or `=>` (never `==`) with optional blanks,
//!   and the key and value may be quoted (`'`, `"` or JSON-escaped `\"`).
//!   Only the value is replaced; its kind is `password` for
//!   password/passwd/pwd keys, `aws_secret_key` for keys naming both `aws`
//!   and `secret`, else `secret`. A space-separated CLI flag
//!   (`--password hunter2`, `mysql -pS3cret`, `curl -u user:pass`) is not an
//!   assignment and is not detected.
//!
//!   Values deliberately left alone: shorter than 4 characters; one repeated
//!   character (`********`); starting with `$`, `%`, `<`, `{{` or
//!   `[REDACTED:` (`$VAR`, `${VAR}`, `%s`, `<password>`, templates, markers);
//!   a path assigned to a `…PWD` key (`PWD=/home/me` is a directory);
//!   quoted values containing whitespace (prose such as `"Enter password"`);
//!   and unquoted values that read as code — followed by `(`, `[` or `<`
//!   (`getenv(…)`, `os.environ[…]`, `Option<…>`), dotted or `::` paths of
//!   digit-free identifiers (`args.password`, `env::var`), type or literal
//!   names (`String`, `str`, `None`, `null`, `true`, …), or identifiers
//!   repeating the key's keyword (`password=password`, `api_key: apiKey`).
//!
//! Overlapping findings are merged into one replacement whose kind is the most
//! specific rule starting first (provider formats, then bearer/URL, then
//! assignments), so `API_KEY=sk-…` becomes `API_KEY=[REDACTED:openai_api_key]`.
//! Redaction is idempotent: markers never match any rule.
//!
//! Performance: one pass lowercases the text (in cache-sized windows) and runs
//! a single multi-literal search for the trigger literals in
//! `TRIGGER_LITERALS`; every other check is anchored at a hit and usually
//! rejects it after a few bytes. Regexes are compiled once (`LazyLock`).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// The kind of credential a redaction marker stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecretKind {
    PrivateKey,
    AwsAccessKey,
    AwsSecretKey,
    GithubToken,
    GitlabToken,
    OpenaiApiKey,
    AnthropicApiKey,
    GoogleApiKey,
    SlackToken,
    SlackWebhook,
    StripeKey,
    NpmToken,
    HuggingfaceToken,
    Jwt,
    BearerToken,
    UrlCredential,
    Password,
    Secret,
}

impl SecretKind {
    /// Snake-case name used inside the `[REDACTED:<name>]` marker.
    pub fn name(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "private_key",
            SecretKind::AwsAccessKey => "aws_access_key",
            SecretKind::AwsSecretKey => "aws_secret_key",
            SecretKind::GithubToken => "github_token",
            SecretKind::GitlabToken => "gitlab_token",
            SecretKind::OpenaiApiKey => "openai_api_key",
            SecretKind::AnthropicApiKey => "anthropic_api_key",
            SecretKind::GoogleApiKey => "google_api_key",
            SecretKind::SlackToken => "slack_token",
            SecretKind::SlackWebhook => "slack_webhook",
            SecretKind::StripeKey => "stripe_key",
            SecretKind::NpmToken => "npm_token",
            SecretKind::HuggingfaceToken => "huggingface_token",
            SecretKind::Jwt => "jwt",
            SecretKind::BearerToken => "bearer_token",
            SecretKind::UrlCredential => "url_credential",
            SecretKind::Password => "password",
            SecretKind::Secret => "secret",
        }
    }

    /// Lower is more specific: provider formats beat `Bearer`/URL context,
    /// which beat generic assignments.
    fn specificity_rank(self) -> u8 {
        match self {
            SecretKind::BearerToken | SecretKind::UrlCredential => 1,
            SecretKind::Password | SecretKind::Secret | SecretKind::AwsSecretKey => 2,
            _ => 0,
        }
    }
}

/// Prefix of every replacement marker.
const MARKER_PREFIX: &str = "[REDACTED:";

/// Strings shorter than this cannot hold any detectable secret (`pwd=abcd`).
const MIN_SECRET_TEXT_LEN: usize = 8;

/// The shortest token rule match (`xoxb-` plus 10); shorter texts can only
/// hold an assignment or URL credential, which need a `:` or `=`.
const MIN_TOKEN_LEN: usize = 15;

/// Minimum length of an assigned value before it is treated as a secret.
const MIN_ASSIGNED_VALUE_LEN: usize = 4;

/// Returns the redacted text and the number of secrets replaced, or `None`
/// when nothing was found (the fast path: no allocation).
pub fn redact_text(text: &str) -> Option<(String, usize)> {
    if cannot_hold_secret(text) {
        return None;
    }
    let findings = merge_overlapping(find_secrets(text));
    if findings.is_empty() {
        return None;
    }
    Some((apply_findings(text, &findings), findings.len()))
}

/// Cheap rejection of short strings (ids, enum-like values) before any scan.
fn cannot_hold_secret(text: &str) -> bool {
    text.len() < MIN_SECRET_TEXT_LEN
        || (text.len() < MIN_TOKEN_LEN && !text.bytes().any(|byte| byte == b':' || byte == b'='))
}

/// Redacts every string leaf of a JSON value in place (object values and array
/// items, recursively; not keys). Returns the number of secrets replaced.
pub fn redact_value(value: &mut Value) -> usize {
    match value {
        Value::String(text) => match redact_text(text) {
            Some((redacted, count)) => {
                *text = redacted;
                count
            }
            None => 0,
        },
        Value::Array(items) => items.iter_mut().map(redact_value).sum(),
        Value::Object(map) => map.values_mut().map(redact_value).sum(),
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

/// A byte range of the input to replace with the marker of `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Finding {
    start: usize,
    end: usize,
    kind: SecretKind,
}

/// Collects the findings of every rule triggered in `text`. Hits inside a
/// PEM block or an assignment value already examined are skipped, which keeps
/// adversarial input (`pwd=pwd=pwd=…`, repeated BEGIN lines) linear.
fn find_secrets(text: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut pem_end = 0;
    let mut assignment_end = 0;
    for_each_trigger(text, |hit, trigger| match trigger {
        Trigger::PemBegin if hit.start >= pem_end => {
            pem_end = find_private_key_at(text, hit.start, &mut findings).unwrap_or(pem_end);
        }
        Trigger::AssignmentKeyword if hit.start >= assignment_end => {
            assignment_end = find_assignment_at(text, hit, &mut findings).unwrap_or(assignment_end);
        }
        Trigger::PemBegin | Trigger::AssignmentKeyword => {}
        Trigger::Token => find_token_at(text, hit, &mut findings),
        Trigger::Bearer => find_bearer_token_at(text, hit.start, &mut findings),
        Trigger::UrlScheme => find_url_credential_at(text, hit.start, &mut findings),
    });
    findings
}

/// Sorts findings by start (the most specific kind first on ties) and merges
/// overlapping ones, keeping the kind of the first.
fn merge_overlapping(mut findings: Vec<Finding>) -> Vec<Finding> {
    findings.sort_by_key(|finding| (finding.start, finding.kind.specificity_rank()));
    let mut merged: Vec<Finding> = Vec::with_capacity(findings.len());
    for finding in findings {
        match merged.last_mut() {
            Some(last) if finding.start < last.end => last.end = last.end.max(finding.end),
            _ => merged.push(finding),
        }
    }
    merged
}

/// Builds the output text with every finding replaced by its marker.
fn apply_findings(text: &str, findings: &[Finding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied_up_to = 0;
    for finding in findings {
        out.push_str(&text[copied_up_to..finding.start]);
        out.push_str(MARKER_PREFIX);
        out.push_str(finding.kind.name());
        out.push(']');
        copied_up_to = finding.end;
    }
    out.push_str(&text[copied_up_to..]);
    out
}

fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).expect("redaction regex constants must compile")
}

// ---------------------------------------------------------------------------
// PEM private keys

static PEM_BEGIN: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"\A-----BEGIN (?:(?:RSA|EC|OPENSSH|DSA|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----")
});

const PEM_END_OPENER: &str = "-----END ";
const PEM_DASHES: &str = "-----";

/// `hit` is the offset of `-----BEGIN ` (any case). Returns the block end.
fn find_private_key_at(text: &str, hit: usize, findings: &mut Vec<Finding>) -> Option<usize> {
    let begin = PEM_BEGIN.find(&text[hit..])?;
    let end = pem_block_end(text, hit + begin.end());
    findings.push(Finding {
        start: hit,
        end,
        kind: SecretKind::PrivateKey,
    });
    Some(end)
}

/// End of the PEM block whose body starts at `body_start`: just after the
/// dashes closing the `-----END …-----` line, or the end of the text.
fn pem_block_end(text: &str, body_start: usize) -> usize {
    let Some(end_offset) = text[body_start..].find(PEM_END_OPENER) else {
        return text.len();
    };
    let label_start = body_start + end_offset + PEM_END_OPENER.len();
    match text[label_start..].find(PEM_DASHES) {
        Some(dash_offset) => label_start + dash_offset + PEM_DASHES.len(),
        None => text.len(),
    }
}

// ---------------------------------------------------------------------------
// Tokens recognised by a literal prefix

/// A rule whose whole match is the secret.
struct TokenRule {
    kind: SecretKind,
    /// Lowercase trigger literals (see [`TRIGGER_LITERALS`]) the match starts with.
    triggers: &'static [&'static str],
    pattern: &'static str,
}

/// In priority order: Anthropic before OpenAI (both start with `sk-`).
const TOKEN_RULES: &[TokenRule] = &[
    TokenRule {
        kind: SecretKind::AnthropicApiKey,
        triggers: &["sk-"],
        pattern: r"sk-ant-(?:api|admin|oat|ort|sid)\d\d-[A-Za-z0-9_-]{20,}",
    },
    TokenRule {
        kind: SecretKind::OpenaiApiKey,
        triggers: &["sk-"],
        pattern: r"sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20,})",
    },
    TokenRule {
        kind: SecretKind::GithubToken,
        triggers: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pattern: r"gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}",
    },
    TokenRule {
        kind: SecretKind::GitlabToken,
        triggers: &["glpat-", "gldt-", "glrt-", "glptt-"],
        pattern: r"gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}",
    },
    TokenRule {
        kind: SecretKind::AwsAccessKey,
        triggers: &["akia", "asia", "abia", "acca"],
        pattern: r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
    },
    TokenRule {
        kind: SecretKind::GoogleApiKey,
        triggers: &["aiza"],
        pattern: r"AIza[0-9A-Za-z_-]{35}",
    },
    TokenRule {
        kind: SecretKind::SlackWebhook,
        triggers: &["hooks.slack.com/"],
        pattern: r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,}",
    },
    TokenRule {
        kind: SecretKind::SlackToken,
        triggers: &["xox"],
        pattern: r"xox[abposre]-[A-Za-z0-9-]{10,}",
    },
    TokenRule {
        kind: SecretKind::StripeKey,
        triggers: &["sk_live_", "rk_live_"],
        pattern: r"[sr]k_live_[A-Za-z0-9]{16,}",
    },
    TokenRule {
        kind: SecretKind::NpmToken,
        triggers: &["npm_"],
        pattern: r"npm_[A-Za-z0-9]{36}",
    },
    TokenRule {
        kind: SecretKind::HuggingfaceToken,
        triggers: &["hf_"],
        pattern: r"hf_[A-Za-z0-9]{34,}",
    },
    TokenRule {
        kind: SecretKind::Jwt,
        triggers: &["eyj"],
        pattern: r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}",
    },
];

/// The rules anchored at the start of the searched slice.
static TOKEN_REGEXES: LazyLock<Vec<(SecretKind, Regex)>> = LazyLock::new(|| {
    TOKEN_RULES
        .iter()
        .map(|rule| (rule.kind, compile(&format!(r"\A(?:{})", rule.pattern))))
        .collect()
});

/// `hit` is the range of a token trigger literal (any case); the first rule
/// started by that literal that matches there, with word boundaries on both
/// sides, wins.
fn find_token_at(text: &str, hit: std::ops::Range<usize>, findings: &mut Vec<Finding>) {
    let bytes = text.as_bytes();
    if !starts_at_boundary(bytes, hit.start) {
        return;
    }
    let literal = &bytes[hit.clone()];
    let hit = hit.start;
    let rules = TOKEN_RULES.iter().zip(TOKEN_REGEXES.iter());
    let started_here = rules.filter(|(rule, _)| {
        rule.triggers
            .iter()
            .any(|t| t.as_bytes().eq_ignore_ascii_case(literal))
    });
    for (_, (kind, regex)) in started_here {
        let Some(found) = regex.find(&text[hit..]) else {
            continue;
        };
        let end = hit + found.end();
        if ends_at_boundary(bytes, end) {
            let start = include_url_scheme(text, hit, *kind);
            findings.push(Finding {
                start,
                end,
                kind: *kind,
            });
            return;
        }
    }
}

/// Slack webhooks are found at `hooks.slack.com`; the marker also covers `https://`.
fn include_url_scheme(text: &str, start: usize, kind: SecretKind) -> usize {
    const SCHEME: &str = "https://";
    if kind == SecretKind::SlackWebhook && text[..start].ends_with(SCHEME) {
        start - SCHEME.len()
    } else {
        start
    }
}

fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

/// True when nothing word-like is glued to the left of `start`. A JSON escape
/// (`\n`, `\t`, `\r`, `\uXXXX`) right before `start` counts as a boundary.
fn starts_at_boundary(bytes: &[u8], start: usize) -> bool {
    let Some(&previous) = start.checked_sub(1).and_then(|index| bytes.get(index)) else {
        return true;
    };
    !is_token_byte(previous) || ends_with_json_escape(&bytes[..start])
}

fn ends_with_json_escape(before: &[u8]) -> bool {
    match before {
        [.., b'\\', b'n' | b't' | b'r'] => before.len() < 3 || before[before.len() - 3] != b'\\',
        [.., b'\\', b'u', a, b, c, d] => [a, b, c, d].iter().all(|byte| byte.is_ascii_hexdigit()),
        _ => false,
    }
}

/// True when nothing word-like is glued to the right of `end`.
fn ends_at_boundary(bytes: &[u8], end: usize) -> bool {
    bytes.get(end).is_none_or(|&next| !is_token_byte(next))
}

// ---------------------------------------------------------------------------
// Trigger scan: one ASCII case-insensitive pass over the text finds every
// place where a rule can start; only those places are examined further.

/// What a trigger literal starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    PemBegin,
    Token,
    Bearer,
    UrlScheme,
    AssignmentKeyword,
}

/// Lowercase trigger literals: token prefixes (each rule's `triggers`), then
/// contextual keywords. Kept at 32 or fewer so the regex crate picks its
/// fastest (slim) Teddy multi-literal searcher.
const TRIGGER_LITERALS: &[&str] = &[
    "-----begin ",
    "sk-",
    "sk_live_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "gldt-",
    "glrt-",
    "glptt-",
    "akia",
    "asia",
    "abia",
    "acca",
    "aiza",
    "hooks.slack.com/",
    "xox",
    "npm_",
    "hf_",
    "eyj",
    "bearer",
    "://",
    "passw",
    "pwd",
    "secret",
    "api",
    "private",
    "token",
];

static TRIGGERS: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    let alternation: Vec<String> = TRIGGER_LITERALS
        .iter()
        .map(|literal| regex::escape(literal))
        .collect();
    regex::bytes::Regex::new(&alternation.join("|")).expect("trigger literals must compile")
});

/// Trigger literals that start (or, for `token`, end) an assignment keyword.
const ASSIGNMENT_TRIGGERS: &[&[u8]] = &[b"passw", b"pwd", b"secret", b"api", b"private", b"token"];

fn classify_trigger(literal: &[u8]) -> Trigger {
    debug_assert!(literal.len() <= SCAN_OVERLAP + 1);
    if literal.starts_with(b"-----") {
        Trigger::PemBegin
    } else if literal == b"bearer" {
        Trigger::Bearer
    } else if literal == b"://" {
        Trigger::UrlScheme
    } else if ASSIGNMENT_TRIGGERS.contains(&literal) {
        Trigger::AssignmentKeyword
    } else {
        Trigger::Token
    }
}

thread_local! {
    /// Reused buffer holding the ASCII-lowercased text for the trigger scan.
    static LOWERCASE_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Bytes lowercased and scanned at a time, so the copy stays in cache.
const SCAN_WINDOW: usize = 32 * 1024;

/// Longest trigger literal minus one: how far a window reaches into the next
/// so literals straddling the border are still found.
const SCAN_OVERLAP: usize = 15;

/// Calls `on_hit(byte range, trigger)` for every trigger literal, ignoring
/// ASCII case. Ranges are valid for `text` (lowercasing ASCII keeps byte
/// positions). Long texts are scanned in overlapping windows; each hit is
/// reported by the window its start belongs to.
fn for_each_trigger(text: &str, mut on_hit: impl FnMut(std::ops::Range<usize>, Trigger)) {
    let bytes = text.as_bytes();
    LOWERCASE_BUFFER.with_borrow_mut(|lowercase| {
        let mut window_start = 0;
        while window_start < bytes.len() {
            let owned_end = (window_start + SCAN_WINDOW).min(bytes.len());
            let window_end = (owned_end + SCAN_OVERLAP).min(bytes.len());
            lowercase.clear();
            lowercase.extend_from_slice(&bytes[window_start..window_end]);
            lowercase.make_ascii_lowercase();
            for hit in TRIGGERS.find_iter(lowercase) {
                let start = window_start + hit.start();
                if start >= owned_end {
                    break;
                }
                on_hit(
                    start..window_start + hit.end(),
                    classify_trigger(hit.as_bytes()),
                );
            }
            window_start = owned_end;
        }
    });
}

// ---------------------------------------------------------------------------
// URL credentials: scheme://user:password@host

static URL_CREDENTIAL: LazyLock<Regex> =
    LazyLock::new(|| compile(r#"\A://[^\s/:@"'<>\\]{0,64}:([^\s/@"'<>\\]{3,128})@"#));

/// `hit` is the offset of `://`.
fn find_url_credential_at(text: &str, hit: usize, findings: &mut Vec<Finding>) {
    let Some(captures) = URL_CREDENTIAL.captures(&text[hit..]) else {
        return;
    };
    let Some(password) = captures.get(1) else {
        return;
    };
    if !is_placeholder_value(password.as_str()) {
        findings.push(Finding {
            start: hit + password.start(),
            end: hit + password.end(),
            kind: SecretKind::UrlCredential,
        });
    }
}

// ---------------------------------------------------------------------------
// Bearer tokens

static BEARER: LazyLock<Regex> =
    LazyLock::new(|| compile(r"\A(?i:bearer)[ \t]+([A-Za-z0-9._~+/=-]{16,})"));

/// `hit` is the offset of the word `bearer` (any case).
fn find_bearer_token_at(text: &str, hit: usize, findings: &mut Vec<Finding>) {
    if !starts_at_boundary(text.as_bytes(), hit) {
        return;
    }
    let Some(captures) = BEARER.captures(&text[hit..]) else {
        return;
    };
    let Some(token) = captures.get(1) else { return };
    if looks_like_bearer_token(token.as_str()) {
        findings.push(Finding {
            start: hit + token.start(),
            end: hit + token.end(),
            kind: SecretKind::BearerToken,
        });
    }
}

/// Real tokens carry digits or mixed case; prose after "bearer" does not.
fn looks_like_bearer_token(token: &str) -> bool {
    let has_digit = token.bytes().any(|byte| byte.is_ascii_digit());
    let has_upper = token.bytes().any(|byte| byte.is_ascii_uppercase());
    let has_lower = token.bytes().any(|byte| byte.is_ascii_lowercase());
    has_digit || (token.len() >= 32 && has_upper && has_lower)
}

// ---------------------------------------------------------------------------
// Assignments: password=..., "api_secret": "...", export AWS_SECRET_ACCESS_KEY=...

/// How an assigned value was written; decides which validity rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueStyle {
    Quoted,
    Bare,
}

/// The assigned value, as a byte range of the whole text.
#[derive(Debug, Clone, Copy)]
struct AssignedValue<'t> {
    text: &'t str,
    start: usize,
    end: usize,
    style: ValueStyle,
}

/// Allowed continuations of a keyword inside the key (lowercase, `_`/`-`
/// removed): `SECRET_ACCESS_KEY`, `api_key_value`, `PASSWORD`, ...
const KEY_SUFFIXES: &[&str] = &[
    "",
    "accesskey",
    "key",
    "keybase",
    "token",
    "value",
    "str",
    "string",
];

/// Bytes that end an unquoted value (and may not start one, plus `=`).
fn ends_bare_value(byte: u8) -> bool {
    byte.is_ascii_whitespace() || b"\"'`,;(){}[]<>\\&".contains(&byte)
}

/// `hit` is the range of an assignment trigger literal (any case).
/// Returns the end of the parsed value, whether or not it was a secret.
fn find_assignment_at(
    text: &str,
    hit: std::ops::Range<usize>,
    findings: &mut Vec<Finding>,
) -> Option<usize> {
    let keyword = resolve_keyword(text.as_bytes(), hit)?;
    let value = parse_assignment(text, keyword.end)?;
    let key = assignment_key(text, keyword.start, value.start);
    if is_secret_value(text, key, value) {
        findings.push(Finding {
            start: value.start,
            end: value.end,
            kind: assignment_kind(key),
        });
    }
    Some(value.end)
}

/// Extends a trigger literal to the whole keyword: `passw` to `password` or
/// `passwd`, `api`/`private` to `api_key`/`private-key`/`privatekey`, and
/// `token` back to `access_token`, `authtoken`, `refresh-token`, `session_token`.
fn resolve_keyword(bytes: &[u8], hit: std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
    let literal = &bytes[hit.clone()];
    let extend_with = |rests: &[&str]| {
        rests
            .iter()
            .find(|rest| starts_with_ignore_case(&bytes[hit.end..], rest))
            .map(|rest| hit.start..hit.end + rest.len())
    };
    if literal.eq_ignore_ascii_case(b"passw") {
        extend_with(&["ord", "d"])
    } else if literal.eq_ignore_ascii_case(b"api") || literal.eq_ignore_ascii_case(b"private") {
        extend_with(&["_key", "-key", "key"])
    } else if literal.eq_ignore_ascii_case(b"token") {
        token_keyword_start(&bytes[..hit.start]).map(|start| start..hit.end)
    } else {
        Some(hit)
    }
}

/// Start of `access`/`auth`/`refresh`/`session` plus optional `_`/`-` right before `token`.
fn token_keyword_start(before: &[u8]) -> Option<usize> {
    let without_separator = match before.last() {
        Some(b'_' | b'-') => &before[..before.len() - 1],
        _ => before,
    };
    ["access", "auth", "refresh", "session"]
        .iter()
        .find(|word| ends_with_ignore_case(without_separator, word))
        .map(|word| without_separator.len() - word.len())
}

fn starts_with_ignore_case(haystack: &[u8], prefix: &str) -> bool {
    haystack
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

fn ends_with_ignore_case(haystack: &[u8], suffix: &str) -> bool {
    haystack
        .len()
        .checked_sub(suffix.len())
        .is_some_and(|start| haystack[start..].eq_ignore_ascii_case(suffix.as_bytes()))
}

/// Parses `<key rest><quote?><blanks><separator><blanks><value>` starting
/// right after the keyword. Separators: `=`, `:`, `:=`, `=>` (not `==`).
fn parse_assignment(text: &str, keyword_end: usize) -> Option<AssignedValue<'_>> {
    let bytes = text.as_bytes();
    let key_end = skip_while(bytes, keyword_end, is_token_byte);
    if !is_allowed_key_suffix(&bytes[keyword_end..key_end]) {
        return None;
    }
    let mut position = skip_key_closing_quote(bytes, key_end);
    position = skip_while(bytes, position, |byte| byte == b' ' || byte == b'\t');
    position = skip_separator(bytes, position)?;
    position = skip_while(bytes, position, |byte| byte == b' ' || byte == b'\t');
    parse_value(text, position)
}

fn skip_while(bytes: &[u8], start: usize, keep_going: impl Fn(u8) -> bool) -> usize {
    bytes[start..]
        .iter()
        .position(|&byte| !keep_going(byte))
        .map_or(bytes.len(), |offset| start + offset)
}

fn is_allowed_key_suffix(rest: &[u8]) -> bool {
    if rest.len() > 16 {
        return false;
    }
    let normalized: Vec<u8> = rest
        .iter()
        .filter(|&&byte| byte != b'_' && byte != b'-')
        .map(u8::to_ascii_lowercase)
        .collect();
    KEY_SUFFIXES
        .iter()
        .any(|suffix| suffix.as_bytes() == normalized.as_slice())
}

fn skip_key_closing_quote(bytes: &[u8], position: usize) -> usize {
    match bytes.get(position..) {
        Some([b'\\', b'"' | b'\'', ..]) => position + 2,
        Some([b'"' | b'\'', ..]) => position + 1,
        _ => position,
    }
}

fn skip_separator(bytes: &[u8], position: usize) -> Option<usize> {
    match bytes.get(position..)? {
        [b':', b'=', ..] | [b'=', b'>', ..] => Some(position + 2),
        [b'=', b'=', ..] => None,
        [b':' | b'=', ..] => Some(position + 1),
        _ => None,
    }
}

fn parse_value(text: &str, start: usize) -> Option<AssignedValue<'_>> {
    let bytes = text.as_bytes();
    let (content_start, content_end, style) = match bytes.get(start..)? {
        [b'\\', b'"', ..] => {
            let end = skip_while(bytes, start + 2, |byte| byte != b'"' && byte != b'\\');
            let closed = bytes
                .get(end..)
                .is_some_and(|rest| rest.starts_with(b"\\\""));
            (start + 2, closed.then_some(end)?, ValueStyle::Quoted)
        }
        [b'"', ..] => (
            start + 1,
            double_quoted_end(bytes, start + 1)?,
            ValueStyle::Quoted,
        ),
        [b'\'', ..] => {
            let end = skip_while(bytes, start + 1, |byte| byte != b'\'' && byte != b'\n');
            (
                start + 1,
                (bytes.get(end) == Some(&b'\'')).then_some(end)?,
                ValueStyle::Quoted,
            )
        }
        [first, ..] if !ends_bare_value(*first) && *first != b'=' => (
            start,
            skip_while(bytes, start, |byte| !ends_bare_value(byte)),
            ValueStyle::Bare,
        ),
        _ => return None,
    };
    Some(AssignedValue {
        text: text.get(content_start..content_end)?,
        start: content_start,
        end: content_end,
        style,
    })
}

/// End of a `"…"` value whose content starts at `start` (backslash escapes
/// allowed, no raw newline): the offset of the closing quote.
fn double_quoted_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut position = start;
    loop {
        match bytes.get(position)? {
            b'"' => return Some(position),
            b'\n' => return None,
            b'\\' => position += 2,
            _ => position += 1,
        }
    }
}

/// The full key: the keyword extended left over identifier characters and
/// right up to (not including) any quote, space or separator.
fn assignment_key(text: &str, keyword_start: usize, value_start: usize) -> &str {
    let bytes = text.as_bytes();
    let mut key_start = keyword_start;
    while key_start > 0 && is_key_byte(bytes[key_start - 1]) {
        key_start -= 1;
    }
    let key_end = text[keyword_start..value_start]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .map_or(value_start, |offset| keyword_start + offset);
    &text[key_start..key_end]
}

fn is_key_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-' || byte == b'.'
}

fn assignment_kind(key: &str) -> SecretKind {
    let key_has = |word: &str| contains_ignore_case(key, word);
    if key_has("pass") || key_has("pwd") {
        SecretKind::Password
    } else if key_has("aws") && key_has("secret") {
        SecretKind::AwsSecretKey
    } else {
        SecretKind::Secret
    }
}

fn is_secret_value(text: &str, key: &str, value: AssignedValue<'_>) -> bool {
    if is_placeholder_value(value.text) || is_working_directory(key, value.text) {
        return false;
    }
    match value.style {
        ValueStyle::Quoted => !value.text.chars().any(char::is_whitespace),
        ValueStyle::Bare => !is_code_expression(text, key, value),
    }
}

/// Values that are clearly not a secret whatever their context: shorter than
/// 4 characters, masks (`****`, `xxxx`), variable references (`$VAR`,
/// `${VAR}`, `%s`), placeholders (`<password>`, `{{ var }}`) and markers.
fn is_placeholder_value(value: &str) -> bool {
    const PLACEHOLDER_STARTS: &[&str] = &["$", "%", "<", "{{", MARKER_PREFIX];
    value.len() < MIN_ASSIGNED_VALUE_LEN
        || PLACEHOLDER_STARTS
            .iter()
            .any(|start| value.starts_with(start))
        || is_single_repeated_char(value)
}

fn is_single_repeated_char(value: &str) -> bool {
    let mut chars = value.chars();
    chars.next().is_some_and(|first| chars.all(|c| c == first))
}

/// `PWD=/home/me` and `OLDPWD=/tmp` are working directories, not passwords.
fn is_working_directory(key: &str, value: &str) -> bool {
    let key_is_pwd = key.len() >= 3 && key[key.len() - 3..].eq_ignore_ascii_case("pwd");
    key_is_pwd && (value.starts_with('/') || value.starts_with('~'))
}

/// Unquoted values that are code rather than data: a call or index
/// (`getenv(`, `os.environ[`), a generic type (`Secret<`), a dotted path
/// (`args.password`, `env::var`), a type or literal name (`String`, `None`),
/// or an identifier that repeats the key's keyword (`password=password`).
fn is_code_expression(text: &str, key: &str, value: AssignedValue<'_>) -> bool {
    let followed_by_code = matches!(text.as_bytes().get(value.end), Some(b'(' | b'[' | b'<'));
    followed_by_code
        || is_dotted_identifier_path(value.text)
        || is_type_or_literal_name(value.text)
        || repeats_key_keyword(key, value.text)
}

fn is_identifier(part: &str) -> bool {
    let mut chars = part.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `args.password`, `process.env.DB_PASSWORD`, `env::var`: identifier
/// segments without digits (a digit, as in `ya29.a0Af`, suggests a token).
fn is_dotted_identifier_path(value: &str) -> bool {
    let is_code_segment =
        |part: &str| is_identifier(part) && !part.bytes().any(|b| b.is_ascii_digit());
    (value.contains('.') && value.split('.').all(is_code_segment))
        || (value.contains("::") && value.split("::").all(is_code_segment))
}

fn is_type_or_literal_name(value: &str) -> bool {
    const NAMES: &[&str] = &[
        "string",
        "&str",
        "str",
        "bool",
        "boolean",
        "number",
        "integer",
        "int",
        "bytes",
        "object",
        "text",
        "varchar",
        "char",
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "required",
        "optional",
        "option",
        "secret",
        "secretstr",
        "secretstring",
        "password",
        "impl",
        "self",
        "this",
        "void",
        "unknown",
        "never",
        "redacted",
        "hidden",
        "masked",
    ];
    NAMES.iter().any(|name| value.eq_ignore_ascii_case(name))
}

/// `password=password`, `api_key: apiKey`, `secret=new_secret`.
fn repeats_key_keyword(key: &str, value: &str) -> bool {
    const STEMS: &[&str] = &["pass", "pwd", "secret", "key", "token"];
    is_identifier(value)
        && STEMS
            .iter()
            .any(|stem| contains_ignore_case(value, stem) && contains_ignore_case(key, stem))
}

/// ASCII case-insensitive substring test; `needle` is lowercase ASCII.
fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn redacted(text: &str) -> String {
        redact_text(text).map_or_else(|| text.to_owned(), |(out, _)| out)
    }

    fn assert_redacted(text: &str, expected: &str) {
        assert_eq!(redacted(text), expected, "input: {text:?}");
    }

    fn assert_untouched(text: &str) {
        assert_eq!(redact_text(text), None, "input: {text:?}");
    }

    const PEM_BODY: &str = "MIIEowIBAAKCAQEAx4f1\nq8Zk2b0aZ9yQ==";

    #[test]
    fn kind_names_are_snake_case() {
        assert_eq!(SecretKind::PrivateKey.name(), "private_key");
        assert_eq!(SecretKind::AwsAccessKey.name(), "aws_access_key");
        assert_eq!(SecretKind::OpenaiApiKey.name(), "openai_api_key");
        assert_eq!(SecretKind::BearerToken.name(), "bearer_token");
    }

    #[test]
    fn shortest_secrets_are_found() {
        assert_redacted("pwd=abcd", "pwd=[REDACTED:password]");
        assert_redacted("xoxb-123456789a", "[REDACTED:slack_token]");
        assert_untouched("call_8f3a2b1c");
    }

    #[test]
    fn pem_block_is_replaced_whole() {
        let text = format!(
            "key:\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\nok"
        );
        assert_redacted(&text, "key:\n[REDACTED:private_key]\nok");
        let openssh = format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----"
        );
        assert_redacted(&openssh, "[REDACTED:private_key]");
    }

    #[test]
    fn pem_block_with_escaped_newlines_is_replaced() {
        let text = r#"{"content":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nkqhkiG9w0BAQ==\n-----END PRIVATE KEY-----\n","path":"k.pem"}"#;
        assert_redacted(
            text,
            r#"{"content":"[REDACTED:private_key]\n","path":"k.pem"}"#,
        );
    }

    #[test]
    fn pem_begin_without_end_is_redacted_to_end_of_text() {
        let text = format!("cat id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}");
        assert_redacted(&text, "cat id_ed25519\n[REDACTED:private_key]");
    }

    #[test]
    fn pem_public_key_and_certificate_are_kept() {
        assert_untouched(
            "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0B\n-----END PUBLIC KEY-----",
        );
        assert_untouched(
            "-----BEGIN CERTIFICATE-----\nMIIBIjANBgkqhkiG9w0B\n-----END CERTIFICATE-----",
        );
    }

    #[test]
    fn aws_access_key_ids() {
        assert_redacted(
            "id AKIAIOSFODNN7EXAMPLE here",
            "id [REDACTED:aws_access_key] here",
        );
        assert_redacted("\"ASIAY34FZKBOKMUTVV7A\"", "\"[REDACTED:aws_access_key]\"");
        assert_untouched("AKIAIOSFODNN7EXAMPLEXX is too long");
        assert_untouched("XAKIAIOSFODNN7EXAMPLE glued to a word");
        assert_untouched("AKIAshort");
    }

    #[test]
    fn aws_secret_access_key_assignment() {
        assert_redacted(
            "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "export AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]",
        );
        assert_redacted(
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
            "aws_secret_access_key = [REDACTED:aws_secret_key]\n",
        );
        assert_untouched("aws_secret_access_key = os.environ['X']");
    }

    #[test]
    fn github_tokens() {
        let classic = format!("ghp_{}", "a1B2c3D4e5".repeat(4));
        assert_redacted(&format!("token {classic}"), "token [REDACTED:github_token]");
        let fine_grained = format!("github_pat_11ABCDEFG0{}", "x_Y9".repeat(10));
        assert_redacted(&fine_grained, "[REDACTED:github_token]");
        assert_untouched("ghp_short and github_pat_tooShort");
    }

    #[test]
    fn gitlab_tokens() {
        assert_redacted(
            "glpat-xYz12345678901234567890 x",
            "[REDACTED:gitlab_token] x",
        );
        assert_redacted("gldt-AbCdEfGhIjKlMnOpQrStUv", "[REDACTED:gitlab_token]");
        assert_untouched("glpat-short");
    }

    #[test]
    fn openai_keys() {
        assert_redacted(
            "OPENAI_API_KEY=sk-abcdefghij0123456789KLMN",
            "OPENAI_API_KEY=[REDACTED:openai_api_key]",
        );
        assert_redacted(
            "sk-proj-Ab3_dEf-GhIjKlMnOpQrStUvWx",
            "[REDACTED:openai_api_key]",
        );
        assert_redacted(
            "sk-svcacct-Ab3dEfGhIjKlMnOpQrStUvWx",
            "[REDACTED:openai_api_key]",
        );
        assert_untouched("pip install scikit-learn sk-learn");
        assert_untouched("run the task-abcdefghij0123456789KLMN job");
        assert_untouched("the disk-usage report");
    }

    #[test]
    fn anthropic_keys_take_precedence_over_openai() {
        let key = format!("sk-ant-api03-{}", "Zx9_-Qw8".repeat(4));
        assert_redacted(
            &format!("ANTHROPIC_API_KEY={key}"),
            "ANTHROPIC_API_KEY=[REDACTED:anthropic_api_key]",
        );
        let oauth = format!("sk-ant-oat01-{}", "Zx9Qw8Er".repeat(4));
        assert_redacted(&oauth, "[REDACTED:anthropic_api_key]");
        assert_untouched("sk-ant-api03-short");
    }

    #[test]
    fn google_api_keys() {
        assert_redacted(
            "key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q&x",
            "key=[REDACTED:google_api_key]&x",
        );
        assert_untouched("AIzaTooShort");
    }

    #[test]
    fn slack_tokens_and_webhooks() {
        assert_redacted("xoxb-1234567890-abcdefghij", "[REDACTED:slack_token]");
        assert_redacted(
            "curl https://hooks.slack.com/services/T000/B000/XXXXabcd1234 -d x",
            "curl [REDACTED:slack_webhook] -d x",
        );
        assert_untouched("xoxb-short");
        assert_untouched("see https://hooks.slack.com/ for docs");
    }

    #[test]
    fn other_provider_tokens() {
        assert_redacted("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "[REDACTED:stripe_key]");
        assert_redacted(&format!("npm_{}", "aB3".repeat(12)), "[REDACTED:npm_token]");
        assert_redacted(
            &format!("HF_TOKEN=hf_{}", "aB3".repeat(12)),
            "HF_TOKEN=[REDACTED:huggingface_token]",
        );
        assert_untouched("npm_config_cache and hf_hub_download");
    }

    #[test]
    fn jwts() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_redacted(&format!("t={jwt};"), "t=[REDACTED:jwt];");
        assert_untouched("eyJhbGciOiJIUzI1NiJ9 alone is only a header");
    }

    #[test]
    fn bearer_tokens_keep_the_scheme() {
        assert_redacted(
            "Authorization: Bearer abc123DEF456ghi789.jkl",
            "Authorization: Bearer [REDACTED:bearer_token]",
        );
        assert_redacted(
            "-H 'authorization: bearer 0123456789abcdefXYZ'",
            "-H 'authorization: bearer [REDACTED:bearer_token]'",
        );
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N";
        assert_redacted(&format!("Bearer {jwt}"), "Bearer [REDACTED:jwt]");
        assert_untouched("The bearer authentication-mechanism is described in RFC 6750");
        assert_untouched("Authorization: Bearer ${TOKEN}");
        assert_untouched("Bearer short123");
    }

    #[test]
    fn url_credentials() {
        assert_redacted(
            "postgres://app:s3cr3tPass@db:5432/app",
            "postgres://app:[REDACTED:url_credential]@db:5432/app",
        );
        assert_redacted(
            "redis://:p4ssw0rdXYZ@localhost:6379/0",
            "redis://:[REDACTED:url_credential]@localhost:6379/0",
        );
        assert_untouched("https://example.com:8443/path@v2");
        assert_untouched("git clone https://user@github.com/org/repo");
        assert_untouched("postgres://app:${DB_PASSWORD}@db/app");
    }

    #[test]
    fn password_assignments_keep_key_and_separator() {
        assert_redacted("password=hunter2!x", "password=[REDACTED:password]");
        assert_redacted(
            "DB_PASSWORD: supersecret",
            "DB_PASSWORD: [REDACTED:password]",
        );
        assert_redacted(
            "let password = \"hunter22\";",
            "let password = \"[REDACTED:password]\";",
        );
        assert_redacted(
            "'passwd' => 'abcd1234',",
            "'passwd' => '[REDACTED:password]',",
        );
        assert_redacted(
            "Server=db;Uid=sa;Pwd=Str0ngPass;",
            "Server=db;Uid=sa;Pwd=[REDACTED:password];",
        );
        assert_redacted(
            "?user=bob&password=letmein1&x=1",
            "?user=bob&password=[REDACTED:password]&x=1",
        );
    }

    #[test]
    fn secret_assignments_in_json_and_escaped_json() {
        assert_redacted(
            r#"{"api_secret": "abc123def"}"#,
            r#"{"api_secret": "[REDACTED:secret]"}"#,
        );
        assert_redacted(
            r#"{\"client_secret\":\"abc123def\"}"#,
            r#"{\"client_secret\":\"[REDACTED:secret]\"}"#,
        );
        assert_redacted("API_KEY=abcd1234efgh", "API_KEY=[REDACTED:secret]");
        assert_redacted(
            "access_token: 'ya29.a0AfH6SMB'",
            "access_token: '[REDACTED:secret]'",
        );
        assert_redacted(
            "SECRET_KEY := \"django-insecure-x8\"",
            "SECRET_KEY := \"[REDACTED:secret]\"",
        );
        assert_redacted(
            "SECRET_KEY_BASE=abc123abc123",
            "SECRET_KEY_BASE=[REDACTED:secret]",
        );
        assert_redacted(
            "?access_token=ya29.a0AfH6SMBx&expires=3600",
            "?access_token=[REDACTED:secret]&expires=3600",
        );
    }

    #[test]
    fn assignment_placeholders_and_code_are_kept() {
        for text in [
            "password=",
            "password: ********",
            "password = os.environ['DB_PASSWORD']",
            "password = os.getenv(\"DB_PASSWORD\")",
            "password=${DB_PASSWORD}",
            "password=$DB_PASSWORD",
            "password: <password>",
            "password: \"{{ .Values.db.password }}\"",
            "password = getpass.getpass()",
            "password = args.password",
            "password: String,",
            "fn login(password: &str) {}",
            "api_key: Option<String>",
            "password=password",
            "password == \"abc\"",
            "password: \"Enter your password\"",
            "client_secret=None",
            "password: [REDACTED:password]",
            "\"password\": {\"type\": \"string\"}",
            "PWD=/home/user/project OLDPWD=/home/user",
            "password_field = form.field()",
            "passwordless login",
            "secrets: inherit",
            "the secret: it's simple",
        ] {
            assert_untouched(text);
        }
    }

    #[test]
    fn overlapping_findings_are_merged_into_one() {
        let key = format!("ghp_{}", "a1B2c3D4e5".repeat(4));
        let (out, count) = redact_text(&format!("GITHUB_API_KEY={key}")).expect("found");
        assert_eq!(out, "GITHUB_API_KEY=[REDACTED:github_token]");
        assert_eq!(count, 1);
    }

    #[test]
    fn tokens_after_json_escapes_are_found() {
        assert_redacted(
            r"line\nAKIAIOSFODNN7EXAMPLE\n",
            r"line\n[REDACTED:aws_access_key]\n",
        );
        assert_redacted(
            r"x\u003dAKIAIOSFODNN7EXAMPLE",
            r"x\u003d[REDACTED:aws_access_key]",
        );
    }

    #[test]
    fn every_token_trigger_is_scanned_and_the_list_stays_slim() {
        for rule in TOKEN_RULES {
            for trigger in rule.triggers {
                assert!(TRIGGER_LITERALS.contains(trigger), "{trigger} not scanned");
                assert_eq!(classify_trigger(trigger.as_bytes()), Trigger::Token);
            }
        }
        assert!(TRIGGER_LITERALS.len() <= 32);
    }

    #[test]
    fn every_assignment_keyword_is_recognised() {
        for key in [
            "password",
            "PASSWD",
            "pwd",
            "client_secret",
            "API_KEY",
            "api-key",
            "apiKey",
            "private_key",
            "PrivateKey",
            "access_token",
            "authToken",
            "refresh-token",
            "SESSION_TOKEN",
        ] {
            assert_redacted(
                &format!("{key}=v4lu3x"),
                &format!("{key}=[REDACTED:{}]", assignment_kind(key).name()),
            );
        }
        assert_untouched("tokens=abcd1234 token_count=1234 privateer=abcd apix=abcd1234");
    }

    #[test]
    fn trigger_literals_fit_in_the_scan_overlap() {
        assert!(
            TRIGGER_LITERALS
                .iter()
                .all(|literal| literal.len() <= SCAN_OVERLAP + 1)
        );
        assert!(
            TRIGGER_LITERALS
                .iter()
                .all(|literal| literal.to_ascii_lowercase() == *literal)
        );
    }

    #[test]
    fn secrets_straddling_scan_windows_are_found() {
        let key = "AKIAIOSFODNN7EXAMPLE";
        for shift in 0..24 {
            let padding = "x ".repeat((SCAN_WINDOW - 12 + shift) / 2);
            let text = format!("{padding}{key} and password=hunter2!x");
            let (out, count) = redact_text(&text).expect("found");
            assert_eq!(count, 2, "shift {shift}");
            assert!(out.ends_with("[REDACTED:aws_access_key] and password=[REDACTED:password]"));
        }
    }

    #[test]
    fn adversarial_repetition_stays_fast() {
        let started = std::time::Instant::now();
        let assignments = "pwd=$pwd=".repeat(50_000);
        assert_untouched(&assignments);
        let begins = "-----BEGIN PRIVATE KEY-----".repeat(20_000);
        assert_eq!(redact_text(&begins).map(|(_, count)| count), Some(1));
        let tokens = format!("x {}", "eyJ".repeat(100_000));
        assert_untouched(&tokens);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn redaction_is_idempotent() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N";
        let text = format!(
            "password=hunter2!x\nAuthorization: Bearer abc123DEF456ghi789\n{jwt}\n\
             \"api_secret\": \"abc123def\"\npostgres://u:p4ssw0rd@h/db\nAKIAIOSFODNN7EXAMPLE\n\
             -----BEGIN EC PRIVATE KEY-----\n{PEM_BODY}\n-----END EC PRIVATE KEY-----\n"
        );
        let (once, count) = redact_text(&text).expect("secrets present");
        assert_eq!(count, 7);
        assert_untouched(&once);
    }

    #[test]
    fn count_matches_number_of_markers() {
        let (out, count) =
            redact_text("a=1 password=abcd1234 b AKIAIOSFODNN7EXAMPLE").expect("found");
        assert_eq!(count, 2);
        assert_eq!(out.matches(MARKER_PREFIX).count(), 2);
    }

    #[test]
    fn redact_value_walks_strings_but_not_keys() {
        let mut value = json!({
            "password": "AKIAIOSFODNN7EXAMPLE",
            "items": ["ok", {"cmd": "export API_KEY=abcd1234efgh"}, 42, null, true],
            "arguments": "{\"command\":\"echo sk-abcdefghij0123456789KLMN\"}",
        });
        assert_eq!(redact_value(&mut value), 3);
        assert_eq!(
            value,
            json!({
                "password": "[REDACTED:aws_access_key]",
                "items": ["ok", {"cmd": "export API_KEY=[REDACTED:secret]"}, 42, null, true],
                "arguments": "{\"command\":\"echo [REDACTED:openai_api_key]\"}",
            })
        );
        assert_eq!(redact_value(&mut value), 0);
    }

    #[test]
    fn non_ascii_text_is_handled() {
        assert_redacted(
            "mot de passe: ünïcödé password=naïve✓pass",
            "mot de passe: ünïcödé password=[REDACTED:password]",
        );
        assert_untouched("日本語のテキスト、秘密ではない。 secret ✓");
    }

    const REALISTIC_SECRET_FREE_TEXT: &str = r#"use std::collections::HashMap;

/// Validates a login form. The password field must not be empty.
pub fn validate(form: &HashMap<String, String>) -> Result<(), FormError> {
    let password = form.get("password").ok_or(FormError::MissingPassword)?;
    let password_field = PasswordField::new(password);
    if password_field.is_weak() { return Err(FormError::WeakPassword); }
    let token_count = tokenizer.encode(&text).len();
    let api_key = config.api_key.clone();
    let secret = vault.secret("db")?;
    Ok(())
}

def connect(host, user, password=None, api_key=None):
    password = password or getpass.getpass("Password: ")
    api_key = api_key or os.environ.get("API_KEY")
    secret_key = settings.SECRET_KEY
    return Client(host=host, user=user, password=password, api_key=api_key)

interface Credentials { username: string; password: string; apiKey?: string }
const secretKey = process.env.SECRET_KEY;
export function login({ username, password }: Credentials) { return api.post("/login", { username, password }); }

The agent ran the task-runner with --disk-usage and reported that the secret to fast builds is
caching. Never paste your password into chat: use the keychain. The bearer authentication scheme
is described in RFC 6750; see https://datatracker.ietf.org/doc/html/rfc6750 and
https://docs.rs/regex/latest/regex/ for details. Install scikit-learn (sk-learn) with pip.
Tokens are counted with tiktoken; the access token is refreshed by the auth module.

{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cargo test -- --nocapture\"],\"workdir\":\"/home/dev/webapp\",\"timeout_ms\":120000}","call_id":"call_8f3a2b1c"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"I updated `verify_password(password: &str)` to return a Result."}]}
{"sessionId":"7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17","timestamp":"2026-03-20T09:15:00.000Z","model":"gemini-2.5-pro"}
{"schema":{"type":"object","properties":{"password":{"type":"string","minLength":12},"secret":{"type":"string"}}}}
apiVersion: v1
kind: Secret
metadata: {name: db-credentials, namespace: default}
data:
  password: ${DB_PASSWORD}
env:
  - name: PASSWORD
    valueFrom: {secretKeyRef: {name: db-credentials, key: password}}
PWD=/home/dev/webapp OLDPWD=/home/dev SHELL=/bin/bash TERM=xterm-256color
git log --oneline | head -5  # 3f2b8c1e fix: rotate secrets via vault, not env
curl -H "Authorization: Bearer $TOKEN" https://api.example.com/v1/items
-----BEGIN CERTIFICATE-----
MIIBszCCAVmgAwIBAgIUEXAMPLE
-----END CERTIFICATE-----
"#;

    #[test]
    fn realistic_secret_free_text_is_untouched() {
        assert!(REALISTIC_SECRET_FREE_TEXT.len() > 2500);
        assert_untouched(REALISTIC_SECRET_FREE_TEXT);
        for line in REALISTIC_SECRET_FREE_TEXT.lines() {
            assert_untouched(line);
        }
    }

    /// `cargo test --release -- --ignored --nocapture redaction_throughput`
    #[test]
    #[ignore = "benchmark; run in release"]
    fn redaction_throughput() {
        let text =
            REALISTIC_SECRET_FREE_TEXT.repeat(50 * 1024 * 1024 / REALISTIC_SECRET_FREE_TEXT.len());
        let chunks: Vec<&str> = text.split_inclusive("\n\n").collect();
        let started = std::time::Instant::now();
        let redacted = chunks
            .iter()
            .filter(|chunk| redact_text(chunk).is_some())
            .count();
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{:.0} MB/s over {} MB in {} chunks",
            text.len() as f64 / 1e6 / seconds,
            text.len() / 1_000_000,
            chunks.len()
        );
        assert_eq!(redacted, 0);
    }
}
