//! The contract, field by field: what code a given argument value must draw, straight from the
//! spec's accepted inputs and permutation matrix (and the id grammar the tools advertise).

use serde_json::{Map, Value};

use super::known::Known;

pub const INVALID_REQUEST: &str = "invalid_request";
pub const INVALID_ID: &str = "invalid_id";
pub const NOT_FOUND: &str = "not_found";
pub const UNSUPPORTED_EVENT_TYPE: &str = "unsupported_event_type";

/// What a call must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    Success,
    Error(&'static str),
}

/// The one verdict of a case whose arguments break at most one rule; several different
/// verdicts would make the expected code depend on validation order, which the spec leaves
/// open, so the generator never builds such a case.
pub fn combine(verdicts: &[Expect]) -> Expect {
    let mut errors = verdicts
        .iter()
        .filter(|verdict| **verdict != Expect::Success);
    let Some(first) = errors.next() else {
        return Expect::Success;
    };
    assert!(
        errors.all(|other| other == first),
        "generator bug: a case breaks several rules: {verdicts:?}"
    );
    *first
}

/// Every argument name must be one of `allowed` (the spec's "unknown field").
pub fn known_fields(arguments: &Map<String, Value>, allowed: &[&str]) -> Expect {
    if arguments
        .keys()
        .all(|name| allowed.contains(&name.as_str()))
    {
        Expect::Success
    } else {
        Expect::Error(INVALID_REQUEST)
    }
}

/// The advertised id grammar `^(session|turn|event):[A-Za-z0-9_-]{1,256}$`: the kind, if any.
pub fn id_kind(text: &str) -> Option<&'static str> {
    ["session", "turn", "event"].into_iter().find(|kind| {
        text.strip_prefix(kind)
            .and_then(|rest| rest.strip_prefix(':'))
            .is_some_and(|body| {
                (1..=256).contains(&body.len())
                    && body
                        .bytes()
                        .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
            })
    })
}

/// `open.id`: required string; blank is `invalid_request`, malformed `invalid_id`,
/// well-formed but unknown `not_found`.
pub fn open_id(value: Option<&Value>, known: &Known) -> Expect {
    let Some(Value::String(text)) = value else {
        return Expect::Error(INVALID_REQUEST);
    };
    match id_verdict(text, known) {
        Ok(_) => Expect::Success,
        Err(code) => Expect::Error(code),
    }
}

/// The kind of a usable id, or the code for a blank, malformed or unknown one.
fn id_verdict(text: &str, known: &Known) -> Result<&'static str, &'static str> {
    if text.trim().is_empty() {
        return Err(INVALID_REQUEST);
    }
    let kind = id_kind(text).ok_or(INVALID_ID)?;
    if known.exists(text) {
        Ok(kind)
    } else {
        Err(NOT_FOUND)
    }
}

/// `search_sessions.within_id`: optional; an event id is `invalid_request` whether it exists
/// or not ("within_id accepts session and turn IDs").
pub fn within_id(value: Option<&Value>, known: &Known) -> Expect {
    let text = match value {
        None | Some(Value::Null) => return Expect::Success,
        Some(Value::String(text)) => text,
        Some(_) => return Expect::Error(INVALID_REQUEST),
    };
    if !text.trim().is_empty() && id_kind(text) == Some("event") {
        return Expect::Error(INVALID_REQUEST);
    }
    match id_verdict(text, known) {
        Ok(_) => Expect::Success,
        Err(code) => Expect::Error(code),
    }
}

/// `search_sessions.query`: required, non-blank after trimming, at most 4096 characters.
pub fn query(value: Option<&Value>) -> Expect {
    match value {
        Some(Value::String(text))
            if !text.trim().is_empty() && text.trim().chars().count() <= 4096 =>
        {
            Expect::Success
        }
        _ => Expect::Error(INVALID_REQUEST),
    }
}

pub const SEARCHABLE_TYPES: [&str; 8] = [
    "user_input",
    "assistant_response",
    "reasoning",
    "tool_call",
    "tool_response",
    "compaction",
    "system",
    "runtime",
];

/// `search_sessions.event_types`: optional non-empty array of strings; a string outside the
/// searchable vocabulary (`unknown` included) is `unsupported_event_type`.
pub fn event_types(value: Option<&Value>) -> Expect {
    let entries = match value {
        None | Some(Value::Null) => return Expect::Success,
        Some(Value::Array(entries)) if !entries.is_empty() => entries,
        Some(_) => return Expect::Error(INVALID_REQUEST),
    };
    let verdicts: Vec<Expect> = entries
        .iter()
        .map(|entry| match entry.as_str() {
            None => Expect::Error(INVALID_REQUEST),
            Some(name) if SEARCHABLE_TYPES.contains(&name) => Expect::Success,
            Some(_) => Expect::Error(UNSUPPORTED_EVENT_TYPE),
        })
        .collect();
    combine(&verdicts)
}

/// An optional integer in `min..=max` (no floats, no numeric strings).
pub fn integer_in(value: Option<&Value>, min: i64, max: i64) -> Expect {
    match value {
        None | Some(Value::Null) => Expect::Success,
        Some(Value::Number(number))
            if number
                .as_i64()
                .is_some_and(|integer| (min..=max).contains(&integer)) =>
        {
            Expect::Success
        }
        Some(_) => Expect::Error(INVALID_REQUEST),
    }
}

/// An optional string that must be one of `choices`.
pub fn choice(value: Option<&Value>, choices: &[&str]) -> Expect {
    match value {
        None | Some(Value::Null) => Expect::Success,
        Some(Value::String(text)) if choices.contains(&text.as_str()) => Expect::Success,
        Some(_) => Expect::Error(INVALID_REQUEST),
    }
}

#[test]
fn the_id_grammar_matches_the_advertised_pattern() {
    assert_eq!(id_kind("turn:a-b_C9"), Some("turn"));
    assert_eq!(
        id_kind(&format!("event:{}", "x".repeat(256))),
        Some("event")
    );
    for malformed in [
        "session:",
        "event:é",
        "turn:a b",
        "Session:x",
        "turn:a:b",
        " turn:a",
    ] {
        assert_eq!(id_kind(malformed), None, "{malformed}");
    }
    assert_eq!(id_kind(&format!("event:{}", "x".repeat(257))), None);
}
