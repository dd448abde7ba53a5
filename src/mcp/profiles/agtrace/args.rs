//! Argument validation for the agtrace tools (unknown fields, limits, booleans, providers,
//! event types, ISO 8601 datetimes), each violation an `invalid_parameter`, and the mapping
//! between esker's vocabulary and AgTrace's (providers, event types).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::reply::AgError;
use crate::model::EventType;
use crate::service::validate::{
    Arguments, optional_field, optional_integer_in_range, parse_datetime_field,
};

/// Rejects arguments the tool does not define.
pub fn reject_unknown(arguments: &Arguments, allowed: &[&str]) -> Result<(), AgError> {
    match arguments
        .keys()
        .find(|name| !allowed.contains(&name.as_str()))
    {
        Some(unknown) => Err(AgError::invalid_parameter(
            unknown,
            format!("unknown parameter: {unknown}"),
        )
        .with_detail("allowed", allowed.to_vec())),
        None => Ok(()),
    }
}

/// An optional string (absent or null is `None`).
pub fn optional_text<'a>(arguments: &'a Arguments, name: &str) -> Result<Option<&'a str>, AgError> {
    match optional_field(arguments, name) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(AgError::invalid_parameter(
            name,
            format!("{name} must be a string"),
        )),
    }
}

/// A required non-blank string, trimmed.
pub fn required_text<'a>(arguments: &'a Arguments, name: &str) -> Result<&'a str, AgError> {
    let text = optional_text(arguments, name)?
        .map(str::trim)
        .unwrap_or_default();
    if text.is_empty() {
        return Err(AgError::invalid_parameter(
            name,
            format!("missing required parameter: {name}"),
        ));
    }
    Ok(text)
}

/// An optional boolean with its default.
pub fn flag(arguments: &Arguments, name: &str, default: bool) -> Result<bool, AgError> {
    match optional_field(arguments, name) {
        None => Ok(default),
        Some(Value::Bool(value)) => Ok(*value),
        Some(_) => Err(AgError::invalid_parameter(
            name,
            format!("{name} must be a boolean"),
        )),
    }
}

/// `limit`: an integer from 1 to `max`, default `default`.
pub fn limit(arguments: &Arguments, default: usize, max: usize) -> Result<usize, AgError> {
    optional_integer_in_range(arguments, "limit", 1, max as i64)
        .map(|limit| limit.map_or(default, |limit| limit as usize))
        .map_err(|error| AgError::invalid_parameter("limit", error.message))
}

/// An optional ISO 8601 datetime with a timezone.
pub fn datetime(arguments: &Arguments, name: &str) -> Result<Option<DateTime<Utc>>, AgError> {
    optional_text(arguments, name)?
        .map(|text| {
            parse_datetime_field(name, text)
                .map_err(|error| AgError::invalid_parameter(name, error.message))
        })
        .transpose()
}

/// AgTrace's provider names, with the esker source each stands for.
pub const PROVIDERS: [(&str, &str); 3] = [
    ("claude_code", "claude"),
    ("codex", "codex"),
    ("gemini", "gemini"),
];

/// The provider name AgTrace shows for an esker source (other sources keep their own names).
pub fn provider_of(source: &str) -> &str {
    PROVIDERS
        .iter()
        .find(|(_, esker)| *esker == source)
        .map_or(source, |(provider, _)| provider)
}

/// The esker source a `provider` argument selects.
pub fn provider(arguments: &Arguments) -> Result<Option<&'static str>, AgError> {
    let Some(name) = optional_text(arguments, "provider")? else {
        return Ok(None);
    };
    PROVIDERS
        .iter()
        .find(|(provider, _)| *provider == name)
        .map(|(_, source)| Some(*source))
        .ok_or_else(|| {
            let names: Vec<&str> = PROVIDERS.iter().map(|(provider, _)| *provider).collect();
            AgError::invalid_parameter("provider", format!("unknown provider: {name}"))
                .with_detail("allowed", names)
        })
}

/// AgTrace's event types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgEventType {
    User,
    Message,
    Reasoning,
    ToolCall,
    ToolResult,
    TokenUsage,
    Notification,
}

/// The `subtype` of the runtime events that carry token counts (Codex `token_count`).
pub const TOKEN_COUNT_SUBTYPE: &str = "token_count";

impl AgEventType {
    pub const ALL: [AgEventType; 7] = [
        AgEventType::ToolCall,
        AgEventType::ToolResult,
        AgEventType::Message,
        AgEventType::User,
        AgEventType::Reasoning,
        AgEventType::TokenUsage,
        AgEventType::Notification,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AgEventType::User => "User",
            AgEventType::Message => "Message",
            AgEventType::Reasoning => "Reasoning",
            AgEventType::ToolCall => "ToolCall",
            AgEventType::ToolResult => "ToolResult",
            AgEventType::TokenUsage => "TokenUsage",
            AgEventType::Notification => "Notification",
        }
    }

    /// The AgTrace type of an esker event (`type` and `subtype` columns).
    pub fn of(event_type: &str, subtype: Option<&str>) -> AgEventType {
        match EventType::parse(event_type).unwrap_or_default() {
            EventType::UserInput => AgEventType::User,
            EventType::AssistantResponse => AgEventType::Message,
            EventType::Reasoning => AgEventType::Reasoning,
            EventType::ToolCall => AgEventType::ToolCall,
            EventType::ToolResponse => AgEventType::ToolResult,
            EventType::Runtime if subtype == Some(TOKEN_COUNT_SUBTYPE) => AgEventType::TokenUsage,
            _ => AgEventType::Notification,
        }
    }

    /// The esker types whose events can be of this AgTrace type.
    pub fn esker_types(self) -> Vec<EventType> {
        match self {
            AgEventType::User => vec![EventType::UserInput],
            AgEventType::Message => vec![EventType::AssistantResponse],
            AgEventType::Reasoning => vec![EventType::Reasoning],
            AgEventType::ToolCall => vec![EventType::ToolCall],
            AgEventType::ToolResult => vec![EventType::ToolResponse],
            AgEventType::TokenUsage => vec![EventType::Runtime],
            AgEventType::Notification => {
                vec![EventType::Compaction, EventType::System, EventType::Runtime]
            }
        }
    }

    pub fn parse(arguments: &Arguments) -> Result<Option<AgEventType>, AgError> {
        let Some(name) = optional_text(arguments, "event_type")? else {
            return Ok(None);
        };
        AgEventType::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
            .map(Some)
            .ok_or_else(|| {
                let names: Vec<&str> = AgEventType::ALL.iter().map(|kind| kind.as_str()).collect();
                AgError::invalid_parameter("event_type", format!("unknown event_type: {name}"))
                    .with_detail("allowed", names)
            })
    }
}

/// `text` cut to at most `max_chars` characters, ending in `...` when cut.
pub fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max_chars.saturating_sub(3)).collect();
    cut.push_str("...");
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn arguments(value: Value) -> Arguments {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn providers_map_both_ways() {
        assert_eq!(provider_of("claude"), "claude_code");
        assert_eq!(provider_of("codex"), "codex");
        assert_eq!(provider_of("opencode"), "opencode");
        let selected = provider(&arguments(json!({"provider": "claude_code"}))).unwrap();
        assert_eq!(selected, Some("claude"));
        assert!(provider(&arguments(json!({"provider": "claude"}))).is_err());
    }

    #[test]
    fn event_types_map_to_agtrace_names() {
        assert_eq!(
            AgEventType::of("tool_response", None),
            AgEventType::ToolResult
        );
        assert_eq!(
            AgEventType::of("runtime", Some("token_count")),
            AgEventType::TokenUsage
        );
        assert_eq!(AgEventType::of("runtime", None), AgEventType::Notification);
        assert_eq!(AgEventType::of("unknown", None), AgEventType::Notification);
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("héllo", 5), "héllo");
        assert_eq!(truncate("héllo wörld", 8), "héllo...");
        assert_eq!(truncate("héllo wörld", 8).chars().count(), 8);
    }

    #[test]
    fn bad_parameters_are_invalid_parameter() {
        for bad in [
            json!({"limit": 0}),
            json!({"limit": 51}),
            json!({"limit": "10"}),
        ] {
            assert!(limit(&arguments(bad), 10, 50).is_err());
        }
        assert_eq!(limit(&arguments(json!({})), 10, 50).unwrap(), 10);
        assert!(flag(&arguments(json!({"x": "yes"})), "x", true).is_err());
        assert!(required_text(&arguments(json!({"q": "  "})), "q").is_err());
    }
}
