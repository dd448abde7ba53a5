//! Sessions as relay-search shows them: `{session_id, project_dir, slug, first_timestamp,
//! last_timestamp, message_count, git_branch, cwd}`, with the session ids the harnesses wrote
//! (native ids), and how a slug names a chain. A session's relay `slug` is its chain's slug;
//! for a chain without one (Codex resumes and forks) the name `chain:<source>-<native id of
//! its first session>`; for a session alone its own slug (none for a sub-agent, which is no
//! member of its parent's chain). Its `session_number` is its place in that chain (1 for a
//! session alone with a slug, null without a slug).

use std::collections::HashMap;

use datafusion::scalar::ScalarValue;
use serde_json::{Value, json};

use super::reply::RelayError;
use crate::service::catalog::{NamedQuery, WarmSnapshot, text_list_parameter, text_parameter};
use crate::service::rows::{Row, RowError, Rows};
use crate::service::text::format_timestamp;

const BY_ID: NamedQuery = NamedQuery {
    name: "relay_session",
    sql: include_str!("../../../../queries/relay_session.sql"),
};
const CHAIN: NamedQuery = NamedQuery {
    name: "relay_chain",
    sql: include_str!("../../../../queries/relay_chain.sql"),
};
const OF_IDS: NamedQuery = NamedQuery {
    name: "relay_sessions_of",
    sql: include_str!("../../../../queries/relay_sessions_of.sql"),
};
const MESSAGE_COUNTS: NamedQuery = NamedQuery {
    name: "relay_message_counts",
    sql: include_str!("../../../../queries/relay_message_counts.sql"),
};

/// The relay slug of a chain without one: this prefix, then its first session's esker id
/// without `session:`.
pub const CHAIN_SLUG_PREFIX: &str = "chain:";
const SESSION_ID_PREFIX: &str = "session:";

/// One session row, as the relay tools read it.
#[derive(Debug, Clone, PartialEq)]
pub struct RelaySession {
    pub session_id: String,
    pub native_id: String,
    pub source: String,
    /// The `month` partition of its events.
    pub month: String,
    pub cwd: Option<String>,
    pub project: Option<String>,
    pub git_branch: Option<String>,
    /// UTC nanoseconds.
    pub started_at: Option<i64>,
    pub updated_at: Option<i64>,
    pub session_slug: Option<String>,
    pub chain_id: Option<String>,
    pub chain_slug: Option<String>,
    pub chain_number: Option<i64>,
    pub sub_agent: bool,
}

impl RelaySession {
    fn from_row(row: &Row<'_>) -> Result<RelaySession, RowError> {
        let text = |column: &str| row.opt_string(column).map(|text| text.map(str::to_owned));
        Ok(RelaySession {
            session_id: row.string("session_id")?.to_owned(),
            native_id: row.string("native_id")?.to_owned(),
            source: row.string("source")?.to_owned(),
            month: row.opt_string("month")?.unwrap_or_default().to_owned(),
            cwd: text("cwd")?,
            project: text("project")?,
            git_branch: text("git_branch")?,
            started_at: row.opt_timestamp_nanos("started_at")?,
            updated_at: row.opt_timestamp_nanos("updated_at")?,
            session_slug: text("session_slug")?,
            chain_id: text("chain_id")?,
            chain_slug: text("chain_slug")?,
            chain_number: row.opt_i64("chain_number")?,
            sub_agent: row.opt_string("parent_session_id")?.is_some(),
        })
    }

    /// The relay slug (see the module doc).
    pub fn slug(&self) -> Option<String> {
        match (&self.chain_id, &self.chain_slug) {
            (Some(_), Some(slug)) => Some(slug.clone()),
            (Some(chain_id), None) => Some(format!(
                "{CHAIN_SLUG_PREFIX}{}",
                chain_id.strip_prefix(SESSION_ID_PREFIX).unwrap_or(chain_id)
            )),
            (None, _) if self.sub_agent => None,
            (None, _) => self.session_slug.clone(),
        }
    }

    /// The 1-based place in its chain; 1 for a session alone with a slug; null without one.
    pub fn session_number(&self) -> Option<i64> {
        self.chain_number
            .or_else(|| self.slug().is_some().then_some(1))
    }

    /// relay's `project_dir`: the working directory, else the harness's project.
    pub fn project_dir(&self) -> Option<&str> {
        self.cwd.as_deref().or(self.project.as_deref())
    }

    /// relay-search's session row.
    pub fn to_json(&self, message_count: i64) -> Value {
        json!({
            "session_id": self.native_id,
            "project_dir": self.project_dir(),
            "slug": self.slug(),
            "first_timestamp": self.started_at.map(format_timestamp),
            "last_timestamp": self.updated_at.map(format_timestamp),
            "message_count": message_count,
            "git_branch": self.git_branch,
            "cwd": self.cwd,
        })
    }
}

fn sessions_of(rows: &Rows) -> Result<Vec<RelaySession>, RowError> {
    rows.iter()
        .map(|row| RelaySession::from_row(&row))
        .collect()
}

/// The session an exact id names: its native id, or its esker `session:` id.
pub async fn by_id(snapshot: &WarmSnapshot, id: &str) -> Result<Option<RelaySession>, RelayError> {
    let mut parameters = vec![text_parameter(id)];
    parameters.extend(snapshot.scope_parameters().await?);
    let rows = snapshot.run(BY_ID, parameters).await?;
    Ok(sessions_of(&rows)?.into_iter().next())
}

/// The sessions `slug` names, in chain order (empty when it names none).
pub async fn chain(snapshot: &WarmSnapshot, slug: &str) -> Result<Vec<RelaySession>, RelayError> {
    let chain_id = slug
        .strip_prefix(CHAIN_SLUG_PREFIX)
        .map(|rest| format!("{SESSION_ID_PREFIX}{rest}"))
        .unwrap_or_default();
    let mut parameters = vec![text_parameter(slug), text_parameter(&chain_id)];
    parameters.extend(snapshot.scope_parameters().await?);
    let rows = snapshot.run(CHAIN, parameters).await?;
    Ok(sessions_of(&rows)?)
}

/// The sessions of `session_ids` (esker ids), by id.
pub async fn of_ids(
    snapshot: &WarmSnapshot,
    session_ids: &[&str],
) -> Result<HashMap<String, RelaySession>, RelayError> {
    if session_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = snapshot
        .run(OF_IDS, vec![text_list_parameter(session_ids)])
        .await?;
    Ok(sessions_of(&rows)?
        .into_iter()
        .map(|session| (session.session_id.clone(), session))
        .collect())
}

/// The sessions a query returns, for sibling modules' queries of the same columns as
/// `queries/relay_session.sql` (such as `relay_list_sessions.sql`).
pub async fn run_sessions(
    snapshot: &WarmSnapshot,
    query: NamedQuery,
    parameters: Vec<ScalarValue>,
) -> Result<Vec<RelaySession>, RelayError> {
    let rows = snapshot.run(query, parameters).await?;
    Ok(sessions_of(&rows)?)
}

/// How many relay messages each session has (prompts, replies, tool calls).
async fn message_counts(
    snapshot: &WarmSnapshot,
    sessions: &[RelaySession],
) -> Result<HashMap<String, i64>, RelayError> {
    if sessions.is_empty() {
        return Ok(HashMap::new());
    }
    let ids: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
    let sources: Vec<&str> = sessions.iter().map(|s| s.source.as_str()).collect();
    let months: Vec<&str> = sessions.iter().map(|s| s.month.as_str()).collect();
    let rows = snapshot
        .run(
            MESSAGE_COUNTS,
            vec![
                text_list_parameter(&ids),
                text_list_parameter(&sources),
                text_list_parameter(&months),
            ],
        )
        .await?;
    rows.iter()
        .map(|row| {
            Ok((
                row.string("session_id")?.to_owned(),
                row.i64("message_count")?,
            ))
        })
        .collect::<Result<_, RowError>>()
        .map_err(RelayError::from)
}

/// The session rows of `sessions` with their message counts (and, when `numbered`, their
/// `session_number`), in the order given.
pub async fn rows_json(
    snapshot: &WarmSnapshot,
    sessions: &[RelaySession],
    numbered: bool,
) -> Result<Vec<Value>, RelayError> {
    let counts = message_counts(snapshot, sessions).await?;
    Ok(sessions
        .iter()
        .map(|session| {
            let count = counts.get(&session.session_id).copied().unwrap_or(0);
            let mut row = session.to_json(count);
            if numbered {
                row["session_number"] = json!(session.session_number());
            }
            row
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> RelaySession {
        RelaySession {
            session_id: "session:claude-c2".into(),
            native_id: "c2".into(),
            source: "claude".into(),
            month: "2026-05".into(),
            cwd: Some("/home/dev/app".into()),
            project: Some("app".into()),
            git_branch: None,
            started_at: Some(0),
            updated_at: Some(0),
            session_slug: Some("quiet-amber-fox".into()),
            chain_id: Some("session:claude-c1".into()),
            chain_slug: Some("quiet-amber-fox".into()),
            chain_number: Some(2),
            sub_agent: false,
        }
    }

    #[test]
    fn slugs_and_numbers_follow_the_chain() {
        let member = session();
        assert_eq!(member.slug().as_deref(), Some("quiet-amber-fox"));
        assert_eq!(member.session_number(), Some(2));

        let resumed = RelaySession {
            session_id: "session:codex-r2".into(),
            session_slug: None,
            chain_id: Some("session:codex-r1".into()),
            chain_slug: None,
            ..session()
        };
        assert_eq!(resumed.slug().as_deref(), Some("chain:codex-r1"));
        assert_eq!(resumed.session_number(), Some(2));

        let alone = RelaySession {
            chain_id: None,
            chain_slug: None,
            chain_number: None,
            ..session()
        };
        assert_eq!(alone.slug().as_deref(), Some("quiet-amber-fox"));
        assert_eq!(alone.session_number(), Some(1));

        let sub_agent = RelaySession {
            sub_agent: true,
            ..alone.clone()
        };
        assert_eq!((sub_agent.slug(), sub_agent.session_number()), (None, None));

        let no_slug = RelaySession {
            session_slug: None,
            ..alone
        };
        assert_eq!((no_slug.slug(), no_slug.session_number()), (None, None));
    }
}
