//! Session ids as AgTrace takes them: the harness's native id, a unique prefix of one, or an
//! esker `session:` id. The native ids of one store generation are loaded once into a sorted
//! table ([`SessionKeys`]) so that a prefix resolves by binary search. Under `esker serve
//! --project-only` the table holds the project's sessions only, so every tool that takes a
//! session id answers `Session not found` for another project's.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;

use super::reply::{AgError, AgErrorCode};
use crate::service::catalog::{CatalogError, NamedQuery, WarmSnapshot};

const SESSION_KEYS: NamedQuery = NamedQuery {
    name: "agtrace_session_keys",
    sql: include_str!("../../../../queries/agtrace_session_keys.sql"),
};

/// Most matches an `ambiguous_session_prefix` error lists.
const MAX_LISTED_MATCHES: usize = 10;

/// A session as the agtrace tools address it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionKey {
    /// esker's `session:` id.
    pub session_id: Arc<str>,
    /// The harness's own id, shown as the session's id.
    pub native_id: Arc<str>,
    pub source: Arc<str>,
    /// The `month` partition of its events.
    pub month: Arc<str>,
    pub turn_count: i64,
    pub event_count: i64,
}

/// Every session of one generation, by native id (sorted) and by esker id.
#[derive(Debug, Default)]
pub struct SessionKeys {
    pub generation: u64,
    by_native: Vec<SessionKey>,
    by_session_id: HashMap<Arc<str>, usize>,
}

impl SessionKeys {
    /// Loads the keys of `snapshot`'s generation.
    pub async fn load(snapshot: &WarmSnapshot) -> Result<SessionKeys, CatalogError> {
        let scope = snapshot.scope_parameters().await?;
        let rows = snapshot.run(SESSION_KEYS, scope.to_vec()).await?;
        let mut by_native = Vec::with_capacity(rows.len());
        for row in rows.iter() {
            let read = || -> Result<SessionKey, crate::service::rows::RowError> {
                Ok(SessionKey {
                    session_id: row.string("session_id")?.into(),
                    native_id: row.string("native_id")?.into(),
                    source: row.string("source")?.into(),
                    month: row.opt_string("month")?.unwrap_or_default().into(),
                    turn_count: row.i64("turn_count")?,
                    event_count: row.i64("event_count")?,
                })
            };
            by_native.push(read().map_err(|source| CatalogError::Rows {
                name: SESSION_KEYS.name,
                source,
            })?);
        }
        Ok(SessionKeys::from_keys(snapshot.generation, by_native))
    }

    pub fn from_keys(generation: u64, mut keys: Vec<SessionKey>) -> SessionKeys {
        keys.sort_by(|left, right| {
            (&left.native_id, &left.session_id).cmp(&(&right.native_id, &right.session_id))
        });
        let by_session_id = keys
            .iter()
            .enumerate()
            .map(|(index, key)| (Arc::clone(&key.session_id), index))
            .collect();
        SessionKeys {
            generation,
            by_native: keys,
            by_session_id,
        }
    }

    /// The session an esker id names.
    pub fn by_session_id(&self, session_id: &str) -> Option<&SessionKey> {
        self.by_session_id
            .get(session_id)
            .map(|index| &self.by_native[*index])
    }

    /// Resolves a session id argument: an esker id, an exact native id, or a unique prefix.
    pub fn resolve(&self, text: &str) -> Result<&SessionKey, AgError> {
        if text.starts_with("session:") {
            return self.by_session_id(text).ok_or_else(|| not_found(text));
        }
        let start = self
            .by_native
            .partition_point(|key| key.native_id.as_ref() < text);
        let matches: Vec<&SessionKey> = self.by_native[start..]
            .iter()
            .take_while(|key| key.native_id.starts_with(text))
            .collect();
        let exact: Vec<&SessionKey> = matches
            .iter()
            .copied()
            .filter(|key| key.native_id.as_ref() == text)
            .collect();
        match (exact.as_slice(), matches.as_slice()) {
            ([only], _) | ([], [only]) => Ok(only),
            (_, []) => Err(not_found(text)),
            (_, several) => Err(ambiguous(text, several)),
        }
    }
}

fn not_found(text: &str) -> AgError {
    AgError::new(
        AgErrorCode::SessionNotFound,
        format!("Session not found: {text}"),
    )
    .with_detail("session_id", text)
}

fn ambiguous(prefix: &str, matches: &[&SessionKey]) -> AgError {
    let listed: Vec<&str> = matches
        .iter()
        .take(MAX_LISTED_MATCHES)
        .map(|key| key.native_id.as_ref())
        .collect();
    AgError::new(
        AgErrorCode::AmbiguousSessionPrefix,
        format!(
            "Session ID prefix '{prefix}' matches {} sessions. Provide more characters.",
            matches.len()
        ),
    )
    .with_detail("prefix", prefix)
    .with_detail("matches", json!(listed))
    .with_detail("match_count", matches.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(session_id: &str, native_id: &str) -> SessionKey {
        SessionKey {
            session_id: session_id.into(),
            native_id: native_id.into(),
            source: "codex".into(),
            month: "2026-03".into(),
            turn_count: 1,
            event_count: 3,
        }
    }

    fn keys() -> SessionKeys {
        SessionKeys::from_keys(
            1,
            vec![
                key("session:codex-fb3cff44-1", "fb3cff44-1"),
                key("session:codex-fb3a1b2c", "fb3a1b2c"),
                key("session:codex-fb3cff44", "fb3cff44"),
                key("session:claude-0a", "0a"),
            ],
        )
    }

    #[test]
    fn native_ids_prefixes_and_esker_ids_resolve() {
        let keys = keys();
        assert_eq!(keys.resolve("0").unwrap().native_id.as_ref(), "0a");
        assert_eq!(keys.resolve("fb3a").unwrap().native_id.as_ref(), "fb3a1b2c");
        assert_eq!(
            keys.resolve("fb3cff44").unwrap().native_id.as_ref(),
            "fb3cff44",
            "an exact id wins over the ids it prefixes"
        );
        assert_eq!(
            keys.resolve("session:codex-fb3cff44-1")
                .unwrap()
                .native_id
                .as_ref(),
            "fb3cff44-1"
        );
    }

    #[test]
    fn ambiguous_and_unknown_ids_are_errors() {
        let keys = keys();
        let error = keys.resolve("fb3").unwrap_err();
        assert_eq!(error.code, AgErrorCode::AmbiguousSessionPrefix);
        assert_eq!(
            error.details["matches"],
            json!(["fb3a1b2c", "fb3cff44", "fb3cff44-1"])
        );
        assert_eq!(
            keys.resolve("zz").unwrap_err().code,
            AgErrorCode::SessionNotFound
        );
        assert_eq!(
            keys.resolve("session:codex-zz").unwrap_err().code,
            AgErrorCode::SessionNotFound
        );
    }
}
