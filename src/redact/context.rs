//! Contextual detectors anchored at a trigger: PEM private key blocks, `Bearer <token>` and
//! `scheme://user:password@host`, plus the token-boundary helpers they share.

use std::sync::LazyLock;

use regex::Regex;

use super::assignment::is_placeholder_value;
use super::kind::{Finding, SecretKind};

pub(super) fn compile(pattern: &str) -> Regex {
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
pub(super) fn find_private_key_at(
    text: &str,
    hit: usize,
    findings: &mut Vec<Finding<'_>>,
) -> Option<usize> {
    let begin = PEM_BEGIN.find(&text[hit..])?;
    let end = pem_block_end(text, hit + begin.end());
    findings.push(Finding::contextual(hit, end, SecretKind::PrivateKey));
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
// Token boundaries

pub(super) fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

/// True when nothing word-like is glued to the left of `start`. A JSON escape
/// (`\n`, `\t`, `\r`, `\uXXXX`) right before `start` counts as a boundary.
pub(super) fn starts_at_boundary(bytes: &[u8], start: usize) -> bool {
    let Some(&previous) = start.checked_sub(1).and_then(|index| bytes.get(index)) else {
        return true;
    };
    !is_token_byte(previous) || ends_with_json_escape(&bytes[..start])
}

pub(super) fn ends_with_json_escape(before: &[u8]) -> bool {
    match before {
        [.., b'\\', b'n' | b't' | b'r'] => before.len() < 3 || before[before.len() - 3] != b'\\',
        [.., b'\\', b'u', a, b, c, d] => [a, b, c, d].iter().all(|byte| byte.is_ascii_hexdigit()),
        _ => false,
    }
}

// ---------------------------------------------------------------------------
// URL credentials: scheme://user:password@host

static URL_CREDENTIAL: LazyLock<Regex> =
    LazyLock::new(|| compile(r#"\A://[^\s/:@"'<>\\]{0,64}:([^\s/@"'<>\\]{3,128})@"#));

/// `hit` is the offset of `://`.
pub(super) fn find_url_credential_at(text: &str, hit: usize, findings: &mut Vec<Finding<'_>>) {
    let Some(captures) = URL_CREDENTIAL.captures(&text[hit..]) else {
        return;
    };
    let Some(password) = captures.get(1) else {
        return;
    };
    if !is_placeholder_value(password.as_str()) {
        findings.push(Finding::contextual(
            hit + password.start(),
            hit + password.end(),
            SecretKind::UrlCredential,
        ));
    }
}

// ---------------------------------------------------------------------------
// Bearer tokens

static BEARER: LazyLock<Regex> =
    LazyLock::new(|| compile(r"\A(?i:bearer)[ \t]+([A-Za-z0-9._~+/=-]{16,})"));

/// `hit` is the offset of the word `bearer` (any case).
pub(super) fn find_bearer_token_at(text: &str, hit: usize, findings: &mut Vec<Finding<'_>>) {
    if !starts_at_boundary(text.as_bytes(), hit) {
        return;
    }
    let Some(captures) = BEARER.captures(&text[hit..]) else {
        return;
    };
    let Some(token) = captures.get(1) else { return };
    if looks_like_bearer_token(token.as_str()) {
        findings.push(Finding::contextual(
            hit + token.start(),
            hit + token.end(),
            SecretKind::BearerToken,
        ));
    }
}

/// Real tokens carry digits or mixed case; prose after "bearer" does not.
fn looks_like_bearer_token(token: &str) -> bool {
    let has_digit = token.bytes().any(|byte| byte.is_ascii_digit());
    let has_upper = token.bytes().any(|byte| byte.is_ascii_uppercase());
    let has_lower = token.bytes().any(|byte| byte.is_ascii_lowercase());
    has_digit || (token.len() >= 32 && has_upper && has_lower)
}
