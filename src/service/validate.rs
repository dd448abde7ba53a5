//! Strict validation of raw tool arguments: unknown fields, required strings, bounded integers,
//! typed MCP ids and timezone-explicit datetimes. Nothing is coerced: every violation becomes a
//! [`ToolError`] that the caller reports in-band.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::{Map, Value};

use crate::ids::classify_id;
use crate::service::envelope::ToolError;

/// Raw tool arguments as the client sent them.
pub type Arguments = Map<String, Value>;

/// Rejects any argument not in `allowed` (`additionalProperties: false`).
pub fn reject_unknown_fields(arguments: &Arguments, allowed: &[&str]) -> Result<(), ToolError> {
    let Some(unknown) = arguments
        .keys()
        .find(|name| !allowed.contains(&name.as_str()))
    else {
        return Ok(());
    };
    Err(
        ToolError::invalid_request(unknown, format!("unknown field: {unknown}"))
            .with_detail("allowed", allowed.to_vec()),
    )
}

/// The value of an optional field: `None` when absent or null.
pub fn optional_field<'a>(arguments: &'a Arguments, name: &str) -> Option<&'a Value> {
    arguments.get(name).filter(|value| !value.is_null())
}

/// A required string field (absent or null is "required", any other type is rejected).
pub fn required_string<'a>(arguments: &'a Arguments, name: &str) -> Result<&'a str, ToolError> {
    match optional_field(arguments, name) {
        None => Err(ToolError::invalid_request(
            name,
            format!("{name} is required"),
        )),
        Some(value) => expect_string(name, value),
    }
}

/// An optional string field.
pub fn optional_string<'a>(
    arguments: &'a Arguments,
    name: &str,
) -> Result<Option<&'a str>, ToolError> {
    optional_field(arguments, name)
        .map(|value| expect_string(name, value))
        .transpose()
}

fn expect_string<'a>(name: &str, value: &'a Value) -> Result<&'a str, ToolError> {
    value
        .as_str()
        .ok_or_else(|| ToolError::invalid_request(name, format!("{name} must be a string")))
}

/// An optional integer in `min..=max`. JSON numbers with a fraction or exponent form (`2.5`,
/// `10.0`), strings (`"10"`) and booleans are rejected, never coerced.
pub fn optional_integer_in_range(
    arguments: &Arguments,
    name: &str,
    min: i64,
    max: i64,
) -> Result<Option<i64>, ToolError> {
    let Some(value) = optional_field(arguments, name) else {
        return Ok(None);
    };
    let out_of_range = || {
        ToolError::invalid_request(
            name,
            format!("{name} must be an integer between {min} and {max}"),
        )
        .with_detail("minimum", min)
        .with_detail("maximum", max)
    };
    let integer = match value {
        Value::Number(number) if number.is_i64() || number.is_u64() => number.as_i64(),
        _ => None,
    };
    match integer {
        Some(integer) if (min..=max).contains(&integer) => Ok(Some(integer)),
        _ => Err(out_of_range()),
    }
}

pub use crate::ids::IdKind;

/// A well-formed MCP id: `session:`, `turn:` or `event:` then 1..=256 chars of `[A-Za-z0-9_-]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpId {
    pub kind: IdKind,
    /// The whole id, exactly as stored in the tables.
    pub text: String,
}

impl McpId {
    /// Parses `text` as an id, or `None` when it is malformed.
    pub fn parse(text: &str) -> Option<McpId> {
        classify_id(text).map(|kind| McpId {
            kind,
            text: text.to_owned(),
        })
    }
}

/// Parses the id in `field`: blank is `invalid_request`, malformed is `invalid_id`.
pub fn parse_id_field(field: &str, text: &str) -> Result<McpId, ToolError> {
    if text.trim().is_empty() {
        return Err(ToolError::invalid_request(
            field,
            format!("{field} must be a non-empty string"),
        ));
    }
    McpId::parse(text).ok_or_else(|| ToolError::invalid_id(field))
}

/// Parses an RFC 3339 / ISO 8601 datetime that carries an explicit offset or `Z`.
pub fn parse_datetime_field(field: &str, text: &str) -> Result<DateTime<Utc>, ToolError> {
    if let Ok(parsed) = DateTime::parse_from_rfc3339(text) {
        return Ok(parsed.with_timezone(&Utc));
    }
    const ISO_BASIC_OFFSET: &str = "%Y-%m-%dT%H:%M:%S%.f%z";
    if let Ok(parsed) = DateTime::parse_from_str(text, ISO_BASIC_OFFSET) {
        return Ok(parsed.with_timezone(&Utc));
    }
    let has_no_timezone = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .any(|format| NaiveDateTime::parse_from_str(text, format).is_ok())
        || chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok();
    let message = if has_no_timezone {
        format!("{field} must include an explicit timezone offset or Z")
    } else {
        format!("{field} must be an RFC 3339 datetime with a timezone offset")
    };
    Err(ToolError::invalid_request(field, message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::envelope::ErrorCode;
    use serde_json::json;

    fn arguments(value: Value) -> Arguments {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn integers_are_never_coerced() {
        for bad in [
            json!(2.5),
            json!("10"),
            json!(true),
            json!(10.0),
            json!(0),
            json!(51),
        ] {
            let args = arguments(json!({ "n_hits": bad }));
            let error = optional_integer_in_range(&args, "n_hits", 1, 50).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidRequest, "{bad}");
        }
        let args = arguments(json!({ "n_hits": 50 }));
        assert_eq!(
            optional_integer_in_range(&args, "n_hits", 1, 50).unwrap(),
            Some(50)
        );
        let args = arguments(json!({ "n_hits": null }));
        assert_eq!(
            optional_integer_in_range(&args, "n_hits", 1, 50).unwrap(),
            None
        );
    }

    #[test]
    fn ids_are_typed_and_bounded() {
        let id = McpId::parse("event:evt_01J9DOESNOTEXIST000000000000").unwrap();
        assert_eq!(id.kind, IdKind::Event);
        assert!(McpId::parse("turn:a-b_C9").is_some());
        for malformed in [
            "not-a-valid-id",
            "session:",
            "message:abc",
            "session:a b",
            "session:a:b",
            "Session:abc",
        ] {
            assert!(McpId::parse(malformed).is_none(), "{malformed}");
        }
        assert!(McpId::parse(&format!("turn:{}", "x".repeat(256))).is_some());
        assert!(McpId::parse(&format!("turn:{}", "x".repeat(257))).is_none());
    }

    #[test]
    fn blank_id_is_invalid_request_and_malformed_is_invalid_id() {
        assert_eq!(
            parse_id_field("id", "  ").unwrap_err().code,
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            parse_id_field("id", "nope").unwrap_err().code,
            ErrorCode::InvalidId
        );
    }

    #[test]
    fn datetimes_need_an_explicit_timezone() {
        let parsed = parse_datetime_field("start", "2026-04-30T09:00:00-04:00").unwrap();
        assert_eq!(parsed.to_rfc3339(), "2026-04-30T13:00:00+00:00");
        assert!(parse_datetime_field("start", "2026-04-30T13:00:00Z").is_ok());
        assert!(parse_datetime_field("start", "2026-04-30T09:00:00-0400").is_ok());
        let naive = parse_datetime_field("start", "2026-04-30T09:00:00").unwrap_err();
        assert!(naive.message.contains("timezone"), "{}", naive.message);
        assert!(parse_datetime_field("start", "2026-04-30").is_err());
        assert!(parse_datetime_field("start", "yesterday").is_err());
    }

    #[test]
    fn unknown_fields_are_rejected_by_name() {
        let args = arguments(json!({ "query": "x", "limit": 3 }));
        let error = reject_unknown_fields(&args, &["query", "n_hits"]).unwrap_err();
        assert_eq!(error.details["field"], "limit");
        assert!(reject_unknown_fields(&args, &["query", "limit"]).is_ok());
    }
}
