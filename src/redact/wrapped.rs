//! JWTs wrapped over line breaks: `eyJ…\n…\n…` as a terminal prints them (real newlines, or
//! JSON-escaped `\n` inside an encoded string, with optional indentation). The unwrapped form
//! is a rule like any other; this finds the forms no single-line regex can.

use super::context::starts_at_boundary;
use super::kind::{Finding, SecretKind};

/// Every line of a wrapped token but the last is at least this long (terminals and debug
/// printers wrap at a fixed, wide column).
const MIN_WRAPPED_LINE_LEN: usize = 16;

/// A continuation shorter than this must look like a token piece (digit, `-`, `_` or `.`),
/// so a word on the next line (`…sig\nDone`) is not swallowed.
const MIN_PLAIN_CONTINUATION_LEN: usize = 16;

/// Each of a JWT's three parts is at least this long.
const MIN_JWT_PART_LEN: usize = 10;

/// Longest wrapped token considered (a JWT with a large payload is a few KB).
const MAX_WRAPPED_LEN: usize = 16 * 1024;

fn is_jwt_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-' || byte == b'=' || byte == b'.'
}

/// `hit` is the offset of `eyj` (any case). Finds a JWT that starts there and crosses at
/// least one line break.
pub(super) fn find_wrapped_jwt_at(text: &str, hit: usize, findings: &mut Vec<Finding<'_>>) {
    let bytes = text.as_bytes();
    if !bytes[hit..].starts_with(b"eyJ") || !starts_at_boundary(bytes, hit) {
        return;
    }
    let lines = wrapped_lines(bytes, hit);
    if lines.len() < 2 {
        return;
    }
    let joined: Vec<u8> = lines
        .iter()
        .flat_map(|line| bytes[line.clone()].iter().copied())
        .collect();
    if is_jwt_shape(&joined) {
        let end = lines.last().map_or(hit, |line| line.end);
        findings.push(Finding::contextual(hit, end, SecretKind::Jwt));
    }
}

/// The runs of JWT characters from `start` joined by line breaks, while the wrapping
/// conditions hold.
fn wrapped_lines(bytes: &[u8], start: usize) -> Vec<std::ops::Range<usize>> {
    let limit = (start + MAX_WRAPPED_LEN).min(bytes.len());
    let mut lines = Vec::new();
    let mut line_start = start;
    loop {
        let line_end = run_end(bytes, line_start, limit);
        lines.push(line_start..line_end);
        if line_end - line_start < MIN_WRAPPED_LINE_LEN {
            break;
        }
        let Some(next_start) = skip_line_break(bytes, line_end, limit) else {
            break;
        };
        let next_end = run_end(bytes, next_start, limit);
        if !is_token_continuation(&bytes[next_start..next_end]) {
            break;
        }
        line_start = next_start;
    }
    lines
}

fn run_end(bytes: &[u8], start: usize, limit: usize) -> usize {
    bytes[start..limit]
        .iter()
        .position(|&byte| !is_jwt_byte(byte))
        .map_or(limit, |offset| start + offset)
}

/// After a line ends at `position`: blanks, one line break (`\n`, `\r\n`, or their JSON
/// escapes), blanks. Returns where the next line starts.
fn skip_line_break(bytes: &[u8], position: usize, limit: usize) -> Option<usize> {
    let is_blank = |byte: &u8| *byte == b' ' || *byte == b'\t';
    let mut at = position;
    while at < limit && is_blank(&bytes[at]) {
        at += 1;
    }
    let rest = &bytes[at..limit];
    let break_len = [&b"\r\n"[..], b"\n", b"\\r\\n", b"\\n"]
        .iter()
        .find(|line_break| rest.starts_with(line_break))
        .map(|line_break| line_break.len())?;
    at += break_len;
    while at < limit && is_blank(&bytes[at]) {
        at += 1;
    }
    Some(at)
}

fn is_token_continuation(line: &[u8]) -> bool {
    !line.is_empty()
        && (line.len() >= MIN_PLAIN_CONTINUATION_LEN
            || line
                .iter()
                .any(|byte| byte.is_ascii_digit() || b"-_.".contains(byte)))
}

/// `eyJ<header>.<payload>.<signature>` with parts of [`MIN_JWT_PART_LEN`] or more.
fn is_jwt_shape(token: &[u8]) -> bool {
    let parts: Vec<&[u8]> = token.split(|byte| *byte == b'.').collect();
    parts.len() == 3
        && parts[0].starts_with(b"eyJ")
        && parts.iter().all(|part| part.len() >= MIN_JWT_PART_LEN)
}
