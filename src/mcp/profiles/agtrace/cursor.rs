//! The agtrace tools' opaque cursors: a tool tag, a fingerprint of the request the cursor
//! continues (filters, level, session) and the position, hex-encoded. A cursor given to
//! another tool or with other filters is `invalid_cursor`, never silently restarted.

use super::reply::{AgError, AgErrorCode};
use crate::service::cursor::filter_fingerprint;

const SEPARATOR: char = '\u{1f}';

/// The cursor continuing the request described by `filter` at `position`.
pub fn encode(tag: &str, filter: &str, position: &[String]) -> String {
    let mut plain = format!("{tag}{SEPARATOR}{}", filter_fingerprint(filter));
    for field in position {
        plain.push(SEPARATOR);
        plain.push_str(field);
    }
    plain.bytes().map(|byte| format!("{byte:02x}")).collect()
}

/// The position a cursor of `tag` for `filter` holds (`fields` values).
pub fn decode(
    tag: &str,
    filter: &str,
    cursor: &str,
    fields: usize,
) -> Result<Vec<String>, AgError> {
    let plain =
        unhex(cursor).ok_or_else(|| invalid(cursor, "not a cursor returned by this tool"))?;
    let parts: Vec<&str> = plain.split(SEPARATOR).collect();
    match parts.as_slice() {
        [found_tag, fingerprint, position @ ..]
            if *found_tag == tag && position.len() == fields =>
        {
            if *fingerprint != filter_fingerprint(filter) {
                return Err(invalid(
                    cursor,
                    "cursor belongs to a request with other parameters; restart without it",
                ));
            }
            Ok(position.iter().map(|field| (*field).to_owned()).collect())
        }
        _ => Err(invalid(cursor, "not a cursor returned by this tool")),
    }
}

fn unhex(text: &str) -> Option<String> {
    if !text.len().is_multiple_of(2) || text.len() > 4096 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

fn invalid(cursor: &str, message: &str) -> AgError {
    AgError::new(
        AgErrorCode::InvalidCursor,
        format!("invalid cursor: {message}"),
    )
    .with_detail("cursor", cursor)
}

/// A position field read back as a number.
pub fn number(field: &str, cursor: &str) -> Result<i64, AgError> {
    field
        .parse()
        .map_err(|_| invalid(cursor, "not a cursor returned by this tool"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_only_for_their_request() {
        let cursor = encode("list", "codex|", &["17".into(), "session:x".into()]);
        assert_eq!(
            decode("list", "codex|", &cursor, 2).unwrap(),
            vec!["17", "session:x"]
        );
        for (tag, filter) in [("list", "gemini|"), ("search", "codex|")] {
            let error = decode(tag, filter, &cursor, 2).unwrap_err();
            assert_eq!(error.code, AgErrorCode::InvalidCursor);
        }
        for garbage in ["", "zz", "eyJvZmZzZXQiOjEwfQ==", "6c697374"] {
            assert!(decode("list", "codex|", garbage, 2).is_err(), "{garbage}");
        }
    }
}
