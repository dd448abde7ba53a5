//! The `file_attention` request: Moraine's fields, defaults and rejections (path hygiene,
//! limit range, explicit-timezone datetimes of at most millisecond precision), the `harness`
//! and `source` filters of the other tools ([`OriginFilter`]), esker's `cursor`, and the
//! canonical form echoed in `request`.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};

use crate::service::cursor::filter_fingerprint;
use crate::service::envelope::ToolError;
use crate::service::file_attention::page::{self, PagePosition};
use crate::service::origin::OriginFilter;
use crate::service::validate::{
    Arguments, optional_field, optional_integer_in_range, optional_string, parse_datetime_field,
    reject_unknown_fields,
};

pub const FIELDS: [&str; 11] = [
    "path",
    "scope",
    "granularity",
    "start_datetime",
    "end_datetime",
    "tool",
    "harness",
    "source",
    "mutations_only",
    "limit",
    "cursor",
];
pub const SCOPES: [&str; 2] = ["project", "all"];
pub const GRANULARITIES: [&str; 2] = ["sessions", "events"];
/// Moraine's default is `min(50, max_results)` with `max_results` 25 out of the box.
pub const DEFAULT_LIMIT: i64 = 25;
/// esker's `max_results`: the largest page any of its tools returns.
pub const MAX_LIMIT: i64 = 50;

/// How far the search widens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Sessions whose working directory is inside the launch directory's project.
    Project,
    All,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::All => "all",
        }
    }
}

/// The shape of the result body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    /// One rollup per session, most recent touch first.
    Sessions,
    /// The touch-by-touch timeline, newest first.
    Events,
}

impl Granularity {
    pub fn as_str(self) -> &'static str {
        match self {
            Granularity::Sessions => "sessions",
            Granularity::Events => "events",
        }
    }
}

/// A validated `file_attention` request.
#[derive(Debug, Clone, PartialEq)]
pub struct AttentionRequest {
    /// The path as given (validated, not yet reduced to a tail).
    pub path: String,
    pub scope: Scope,
    pub granularity: Granularity,
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
    pub tool: Option<String>,
    pub origin: OriginFilter,
    pub mutations_only: bool,
    pub limit: usize,
    /// The cursor as given, and the position it decodes to.
    pub cursor: Option<(String, PagePosition)>,
}

impl AttentionRequest {
    /// Binds cursors to everything that decides the listing.
    pub fn fingerprint(&self) -> String {
        let canonical_filter = format!(
            "{}|{}|{}|{:?}|{:?}|{}|{}|{}|{}",
            self.path,
            self.scope.as_str(),
            self.granularity.as_str(),
            self.start.map(|time| time.timestamp_micros()),
            self.end.map(|time| time.timestamp_micros()),
            self.tool.as_deref().unwrap_or_default(),
            self.origin.harness.map_or("", |source| source.harness()),
            self.origin.source.map_or("", |source| source.as_str()),
            self.mutations_only,
        );
        filter_fingerprint(&canonical_filter)
    }

    /// The request after defaults, as echoed in `request`.
    pub fn canonical(&self) -> Value {
        json!({
            "path": self.path,
            "scope": self.scope.as_str(),
            "granularity": self.granularity.as_str(),
            "start_datetime": self.start.map(canonical_datetime),
            "end_datetime": self.end.map(canonical_datetime),
            "tool": self.tool,
            "harness": self.origin.harness.map(|source| source.harness()),
            "source": self.origin.source.map(|source| source.as_str()),
            "mutations_only": self.mutations_only,
            "limit": self.limit,
            "cursor": self.cursor.as_ref().map(|(text, _)| text.as_str()),
        })
    }
}

fn canonical_datetime(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Strict validation of the raw arguments.
pub fn parse(arguments: &Arguments) -> Result<AttentionRequest, ToolError> {
    reject_unknown_fields(arguments, &FIELDS)?;
    let path = parse_path(arguments)?;
    let limit = optional_integer_in_range(arguments, "limit", 1, MAX_LIMIT)?
        .unwrap_or(DEFAULT_LIMIT) as usize;
    let start = parse_optional_datetime(arguments, "start_datetime")?;
    let end = parse_optional_datetime(arguments, "end_datetime")?;
    if let (Some(start), Some(end)) = (start, end)
        && end <= start
    {
        return Err(ToolError::invalid_request(
            "end_datetime",
            "end_datetime must be later than start_datetime",
        ));
    }
    let scope = match parse_choice(arguments, "scope", &SCOPES)? {
        Some("all") => Scope::All,
        _ => Scope::Project,
    };
    let granularity = match parse_choice(arguments, "granularity", &GRANULARITIES)? {
        Some("events") => Granularity::Events,
        _ => Granularity::Sessions,
    };
    let tool = optional_string(arguments, "tool")?
        .map(str::trim)
        .filter(|tool| !tool.is_empty())
        .map(str::to_owned);
    let mutations_only = match optional_field(arguments, "mutations_only") {
        None => false,
        Some(Value::Bool(flag)) => *flag,
        Some(_) => {
            return Err(ToolError::invalid_request(
                "mutations_only",
                "mutations_only must be a boolean",
            ));
        }
    };
    let mut request = AttentionRequest {
        path,
        scope,
        granularity,
        start,
        end,
        tool,
        origin: OriginFilter::parse(arguments)?,
        mutations_only,
        limit,
        cursor: None,
    };
    if let Some(text) = optional_string(arguments, "cursor")? {
        let position = page::decode_cursor(text, &request.fingerprint())?;
        request.cursor = Some((text.to_owned(), position));
    }
    Ok(request)
}

/// `path`: required, a file (no trailing slash), no surrounding whitespace, no `file://` URI.
fn parse_path(arguments: &Arguments) -> Result<String, ToolError> {
    let invalid = |message: &str| ToolError::invalid_request("path", message);
    let path = match optional_field(arguments, "path") {
        None => return Err(invalid("path is required")),
        Some(Value::String(path)) => path,
        Some(_) => return Err(invalid("path must be a string")),
    };
    if path != path.trim() {
        return Err(invalid("path must not have leading or trailing whitespace"));
    }
    if path.starts_with("file://") {
        return Err(invalid(
            "file:// URIs are not supported; pass a filesystem path",
        ));
    }
    if path.ends_with('/') {
        return Err(invalid(
            "path must name a file, not a directory-style path ending in '/'",
        ));
    }
    if path.is_empty() {
        return Err(invalid("path must be a non-empty string"));
    }
    if path.contains(['\n', '\r', '\0']) {
        return Err(invalid("path must be a single line"));
    }
    Ok(path.clone())
}

/// An optional datetime bound: blank is absent; otherwise an explicit timezone and at most
/// millisecond precision (Moraine's rule).
fn parse_optional_datetime(
    arguments: &Arguments,
    field: &str,
) -> Result<Option<DateTime<Utc>>, ToolError> {
    let Some(text) = optional_string(arguments, field)? else {
        return Ok(None);
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    if fraction_digits(trimmed) > 3 {
        return Err(ToolError::invalid_request(
            field,
            format!("{field} must have at most millisecond precision"),
        ));
    }
    parse_datetime_field(field, trimmed).map(Some)
}

/// Digits after the decimal point of the time part.
fn fraction_digits(text: &str) -> usize {
    let Some(time_start) = text.find(['T', 't', ' ']) else {
        return 0;
    };
    let time = &text[time_start + 1..];
    let Some(dot) = time.find('.') else {
        return 0;
    };
    time[dot + 1..]
        .chars()
        .take_while(char::is_ascii_digit)
        .count()
}

/// An optional string that must be one of `choices` (null means the default).
fn parse_choice(
    arguments: &Arguments,
    field: &str,
    choices: &[&'static str],
) -> Result<Option<&'static str>, ToolError> {
    let invalid = || {
        ToolError::invalid_request(
            field,
            format!("{field} must be one of {}", choices.join(", ")),
        )
        .with_detail("allowed", choices.to_vec())
    };
    let Some(text) = optional_string(arguments, field).map_err(|_| invalid())? else {
        return Ok(None);
    };
    choices
        .iter()
        .find(|choice| **choice == text)
        .copied()
        .map(Some)
        .ok_or_else(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::envelope::ErrorCode;

    fn parse_value(value: Value) -> Result<AttentionRequest, ToolError> {
        parse(value.as_object().unwrap())
    }

    #[test]
    fn defaults_follow_moraine() {
        let request = parse_value(json!({"path": "crates/x/src/lib.rs"})).unwrap();
        assert_eq!(
            request.canonical(),
            json!({
                "path": "crates/x/src/lib.rs",
                "scope": "project",
                "granularity": "sessions",
                "start_datetime": null,
                "end_datetime": null,
                "tool": null,
                "harness": null,
                "source": null,
                "mutations_only": false,
                "limit": 25,
                "cursor": null,
            })
        );
    }

    #[test]
    fn filters_are_trimmed_and_datetimes_normalized() {
        let request = parse_value(json!({
            "path": "a/b.rs", "scope": "all", "granularity": "events",
            "harness": "claude-code", "source": "claude", "tool": " Edit ",
            "start_datetime": "2026-04-30T09:00:00-04:00", "end_datetime": " ",
            "mutations_only": true, "limit": 50,
        }))
        .unwrap();
        let canonical = request.canonical();
        assert_eq!(canonical["harness"], "claude-code");
        assert_eq!(canonical["source"], "claude");
        assert_eq!(canonical["tool"], "Edit");
        assert_eq!(canonical["start_datetime"], "2026-04-30T13:00:00.000Z");
        assert_eq!(canonical["end_datetime"], Value::Null);
        assert_eq!(canonical["granularity"], "events");
    }

    #[test]
    fn path_hygiene_and_bad_fields_are_invalid_requests() {
        let cases = [
            json!({}),
            json!({"path": " crates/a.rs"}),
            json!({"path": "crates/a.rs "}),
            json!({"path": "file:///Users/me/Cargo.toml"}),
            json!({"path": "crates/src/"}),
            json!({"path": ""}),
            json!({"path": 3}),
            json!({"path": "a.rs", "limit": 0}),
            json!({"path": "a.rs", "limit": 51}),
            json!({"path": "a.rs", "scope": "repo"}),
            json!({"path": "a.rs", "granularity": "turns"}),
            json!({"path": "a.rs", "harness": "claude"}),
            json!({"path": "a.rs", "source": "  "}),
            json!({"path": "a.rs", "mutations_only": "yes"}),
            json!({"path": "a.rs", "start_datetime": "2026-04-30T09:00:00"}),
            json!({"path": "a.rs", "start_datetime": "2026-06-16T07:04:22.918999999Z"}),
            json!({"path": "a.rs", "start_datetime": "2026-04-30T10:00:00Z", "end_datetime": "2026-04-30T09:00:00Z"}),
            json!({"path": "a.rs", "cursor": "garbage"}),
            json!({"path": "a.rs", "query": "x"}),
        ];
        for arguments in cases {
            let error = parse_value(arguments.clone()).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidRequest, "{arguments}");
        }
        let error = parse_value(json!({"path": "a/"})).unwrap_err();
        assert_eq!(error.details["field"], "path");
    }
}
