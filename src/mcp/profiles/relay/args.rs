//! Argument validation for the relay tools: unknown parameters, strings, string lists,
//! relay-search's clamped `limit` and its ISO date bounds. Each violation is a [`RelayError`]
//! (relay-search itself validates little: where it would silently match nothing, esker says why).

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use serde_json::Value;

use super::reply::RelayError;
use crate::service::validate::{Arguments, optional_field};

/// relay-search's `MAX_LIMIT`: every `limit` is clamped to `1..=500`.
pub const MAX_LIMIT: i64 = 500;

/// Rejects arguments the tool does not define.
pub fn reject_unknown(arguments: &Arguments, allowed: &[&str]) -> Result<(), RelayError> {
    match arguments
        .keys()
        .find(|name| !allowed.contains(&name.as_str()))
    {
        Some(unknown) => Err(RelayError::new(format!(
            "Unknown parameter: {unknown} (parameters: {})",
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

/// An optional string (absent or null is `None`).
pub fn optional_text<'a>(
    arguments: &'a Arguments,
    name: &str,
) -> Result<Option<&'a str>, RelayError> {
    match optional_field(arguments, name) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(RelayError::new(format!("{name} must be a string"))),
    }
}

/// A required string (it may be empty, as relay-search takes it).
pub fn required_text<'a>(arguments: &'a Arguments, name: &str) -> Result<&'a str, RelayError> {
    optional_text(arguments, name)?
        .ok_or_else(|| RelayError::new(format!("Missing required parameter: {name}")))
}

/// An optional list of strings.
pub fn text_list(arguments: &Arguments, name: &str) -> Result<Option<Vec<String>>, RelayError> {
    let Some(value) = optional_field(arguments, name) else {
        return Ok(None);
    };
    let not_a_list = || RelayError::new(format!("{name} must be a list of strings"));
    value
        .as_array()
        .ok_or_else(not_a_list)?
        .iter()
        .map(|item| item.as_str().map(str::to_owned).ok_or_else(not_a_list))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// `limit`, default `default`, clamped to `1..=500` as relay-search clamps it.
pub fn clamped_limit(arguments: &Arguments, default: i64) -> Result<usize, RelayError> {
    let limit = match optional_field(arguments, "limit") {
        None => default,
        Some(Value::Number(number)) if number.is_i64() => number.as_i64().unwrap_or(default),
        Some(Value::Number(number)) if number.is_u64() => MAX_LIMIT,
        Some(_) => return Err(RelayError::new("limit must be an integer")),
    };
    Ok(limit.clamp(1, MAX_LIMIT) as usize)
}

/// `tags`: esker keeps no tags, so a non-empty tag filter cannot be honoured.
pub fn no_tags(arguments: &Arguments) -> Result<(), RelayError> {
    match text_list(arguments, "tags")? {
        Some(tags) if !tags.is_empty() => Err(RelayError::new(
            "Tags are not supported: esker's relay profile has no tagging tools, so no message or session carries a tag",
        )),
        _ => Ok(()),
    }
}

/// Which end of a date range a bound closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// `date_from`: a bare date starts at its midnight (UTC).
    From,
    /// `date_to`: a bare date ends at its last instant (relay appends `T23:59:59Z`).
    To,
}

/// An optional ISO date or datetime bound (empty is absent, as relay-search reads it): a bare
/// date, a datetime with an offset or `Z`, or a datetime without one (UTC, the logs' zone).
pub fn date_bound(
    arguments: &Arguments,
    name: &str,
    bound: Bound,
) -> Result<Option<DateTime<Utc>>, RelayError> {
    let Some(text) = optional_text(arguments, name)?.filter(|text| !text.is_empty()) else {
        return Ok(None);
    };
    parse_instant(text, bound)
        .map(Some)
        .ok_or_else(|| {
            RelayError::new(format!(
                "Invalid {name}: {text} (use an ISO date or datetime, e.g. 2026-01-15 or 2026-01-15T09:30:00Z)"
            ))
        })
}

/// UTC nanoseconds of `time`, clamped to what a timestamp column holds (1677..2262).
pub fn nanos(time: DateTime<Utc>) -> i64 {
    time.timestamp_nanos_opt()
        .unwrap_or(if time.timestamp() < 0 {
            i64::MIN
        } else {
            i64::MAX
        })
}

/// A timestamp argument (`around_timestamp`) read as [`date_bound`] reads a lower bound.
pub fn instant(arguments: &Arguments, name: &str) -> Result<Option<DateTime<Utc>>, RelayError> {
    date_bound(arguments, name, Bound::From)
}

fn parse_instant(text: &str, bound: Bound) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Some(time.with_timezone(&Utc));
    }
    if let Some(naive) = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S%.f",
    ]
    .iter()
    .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
    {
        return Some(naive.and_utc());
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    let time = match bound {
        Bound::From => NaiveTime::MIN,
        Bound::To => NaiveTime::from_hms_nano_opt(23, 59, 59, 999_999_999)?,
    };
    Some(date.and_time(time).and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn arguments(value: Value) -> Arguments {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn limits_are_clamped_like_relays() {
        let limit = |value: Value| clamped_limit(&arguments(json!({ "limit": value })), 10);
        assert_eq!(limit(json!(0)), Ok(1));
        assert_eq!(limit(json!(-5)), Ok(1));
        assert_eq!(limit(json!(7)), Ok(7));
        assert_eq!(limit(json!(5000)), Ok(500));
        assert_eq!(limit(json!(u64::MAX)), Ok(500));
        assert_eq!(limit(Value::Null), Ok(10));
        assert!(limit(json!("10")).is_err());
        assert!(limit(json!(2.5)).is_err());
    }

    #[test]
    fn bare_dates_cover_whole_days() {
        let bound = |text: &str, which| date_bound(&arguments(json!({ "d": text })), "d", which);
        let at = |text: &str| Some(DateTime::parse_from_rfc3339(text).unwrap().to_utc());
        assert_eq!(
            bound("2026-01-15", Bound::From),
            Ok(at("2026-01-15T00:00:00Z"))
        );
        assert_eq!(
            bound("2026-01-15", Bound::To),
            Ok(at("2026-01-15T23:59:59.999999999Z"))
        );
        assert_eq!(
            bound("2026-01-15T10:00:00+02:00", Bound::To),
            Ok(at("2026-01-15T08:00:00Z"))
        );
        assert_eq!(
            bound("2026-01-15T10:00:00", Bound::From),
            Ok(at("2026-01-15T10:00:00Z"))
        );
        assert_eq!(bound("", Bound::From), Ok(None));
        let error = bound("last week", Bound::From).unwrap_err();
        assert!(error.message.starts_with("Invalid d: last week"), "{error}");
    }

    #[test]
    fn tags_and_unknown_parameters_are_refused() {
        assert!(no_tags(&arguments(json!({"tags": ["insight"]}))).is_err());
        assert!(no_tags(&arguments(json!({"tags": []}))).is_ok());
        assert!(no_tags(&arguments(json!({"tags": "insight"}))).is_err());
        let error = reject_unknown(&arguments(json!({"qeury": "x"})), &["query"]).unwrap_err();
        assert_eq!(
            error.message,
            "Unknown parameter: qeury (parameters: query)"
        );
    }
}
