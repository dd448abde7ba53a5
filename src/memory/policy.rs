//! The sensitive-data policy of memory entries: a text, title or metadata object holding a
//! secret that esker's redaction recognises (provider tokens, private keys, JWTs, bearer
//! tokens, credentials in URLs, values assigned to secret names) is refused with
//! `POLICY_BLOCKED`, naming the field and the kind of secret, never the value. Nothing is
//! stored: unlike log ingest, a memory is refused rather than redacted, so what an agent saved
//! is exactly what it reads back.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{ErrorCode, MemoryError};
use crate::redact::Redactor;

/// Checks entries against one redactor's rules.
#[derive(Debug, Clone)]
pub struct Policy {
    redactor: Arc<Redactor>,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy::new(Redactor::builtin())
    }
}

impl Policy {
    pub fn new(redactor: Arc<Redactor>) -> Policy {
        Policy { redactor }
    }

    /// Refuses the first field holding a secret.
    pub fn check(
        &self,
        text: &str,
        title: &str,
        metadata: &Map<String, Value>,
    ) -> Result<(), MemoryError> {
        self.check_field("text", text)?;
        self.check_field("title", title)?;
        if !metadata.is_empty() {
            // As JSON text, so `{"api_key": "..."}` is seen as the assignment it is.
            self.check_field("metadata", &Value::Object(metadata.clone()).to_string())?;
        }
        Ok(())
    }

    fn check_field(&self, field: &str, value: &str) -> Result<(), MemoryError> {
        let Some(finding) = self.redactor.find(value).into_iter().next() else {
            return Ok(());
        };
        Err(MemoryError::new(
            ErrorCode::PolicyBlocked,
            format!(
                "input blocked by sensitive-data policy: {field} holds a secret ({})",
                finding.kind
            ),
        )
        .with_detail("field", field)
        .with_detail("kind", finding.kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GitHub token of the right shape, assembled so no complete token sits in the source.
    fn fake_github_token() -> String {
        format!("ghp_{}", "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVc")
    }

    #[test]
    fn secrets_are_refused_by_kind_without_their_value() {
        let policy = Policy::default();
        let token = fake_github_token();
        let error = policy
            .check(&format!("deploy with {token}"), "t", &Map::new())
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::PolicyBlocked);
        assert_eq!(error.details["field"], "text");
        assert_eq!(error.details["kind"], "github_token");
        assert!(!error.to_json().to_string().contains(&token));

        let mut metadata = Map::new();
        metadata.insert("note".into(), Value::String(token.clone()));
        let error = policy.check("fine", "fine", &metadata).unwrap_err();
        assert_eq!(error.details["field"], "metadata");
    }

    #[test]
    fn ordinary_notes_pass() {
        let policy = Policy::default();
        let text = "We chose Parquet + tantivy; commit 3759d93 fixed the token-count sum.";
        assert!(policy.check(text, "decision", &Map::new()).is_ok());
    }
}
