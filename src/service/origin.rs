//! Moraine's `harness` and `source` filters (exact, case-sensitive), shared by the retrieval
//! tools: validated against the harnesses esker reads, echoed in `request` when given.

use serde_json::{Value, json};

use crate::model::Source;
use crate::service::envelope::ToolError;
use crate::service::validate::{Arguments, optional_string};

/// The `harness` and `source` a request names, both validated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OriginFilter {
    pub harness: Option<Source>,
    pub source: Option<Source>,
}

/// A `harness` and a `source` that no session has both of: the answer is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contradictory;

impl OriginFilter {
    pub fn parse(arguments: &Arguments) -> Result<OriginFilter, ToolError> {
        let harness = optional_string(arguments, "harness")?
            .map(|name| {
                Source::from_harness(name).ok_or_else(|| unknown("harness", name, |s| s.harness()))
            })
            .transpose()?;
        let source = optional_string(arguments, "source")?
            .map(|name| Source::parse(name).ok_or_else(|| unknown("source", name, Source::as_str)))
            .transpose()?;
        Ok(OriginFilter { harness, source })
    }

    /// The one source both filters allow (`None`: any).
    pub fn source(&self) -> Result<Option<Source>, Contradictory> {
        match (self.harness, self.source) {
            (Some(harness), Some(source)) if harness != source => Err(Contradictory),
            (harness, source) => Ok(source.or(harness)),
        }
    }

    /// Adds the filters that were given to a canonical request (spec-000 requests echo as
    /// before).
    pub fn echo(&self, canonical: &mut Value) {
        if let Some(harness) = self.harness {
            canonical["harness"] = json!(harness.harness());
        }
        if let Some(source) = self.source {
            canonical["source"] = json!(source.as_str());
        }
    }

    /// Whether a session of `source` passes the filters.
    pub fn admits(&self, source: &str) -> bool {
        match self.source() {
            Ok(None) => true,
            Ok(Some(wanted)) => wanted.as_str() == source,
            Err(Contradictory) => false,
        }
    }
}

fn unknown(field: &str, name: &str, name_of: impl Fn(Source) -> &'static str) -> ToolError {
    let known: Vec<&str> = Source::ALL.into_iter().map(name_of).collect();
    ToolError::invalid_request(
        field,
        format!("unknown {field} {name:?}; known: {}", known.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(value: Value) -> Result<OriginFilter, ToolError> {
        OriginFilter::parse(value.as_object().unwrap())
    }

    #[test]
    fn harness_and_source_resolve_to_one_source_or_nothing() {
        let claude = filter(json!({"harness": "claude-code"})).unwrap();
        assert_eq!(claude.source(), Ok(Some(Source::Claude)));
        assert!(claude.admits("claude") && !claude.admits("codex"));
        let both = filter(json!({"harness": "codex", "source": "claude"})).unwrap();
        assert_eq!(both.source(), Err(Contradictory));
        assert!(!both.admits("claude"));
        assert_eq!(filter(json!({})).unwrap().source(), Ok(None));
    }

    #[test]
    fn unknown_names_list_the_known_ones_and_names_are_case_sensitive() {
        let error = filter(json!({"harness": "Claude-Code"})).unwrap_err();
        assert!(error.message.contains("claude-code"), "{}", error.message);
        assert!(filter(json!({"source": "nope"})).is_err());
        let mut canonical = json!({"query": "x"});
        filter(json!({"source": "gemini"}))
            .unwrap()
            .echo(&mut canonical);
        assert_eq!(canonical, json!({"query": "x", "source": "gemini"}));
    }
}
