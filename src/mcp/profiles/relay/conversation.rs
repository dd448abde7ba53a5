//! `get_conversation`: one session by its id, or every session of a slug's chain as one
//! chronological stream; `session` picks chain members (`"4"`, `"4-5"`, `"1,3-5"`, relay's
//! syntax and messages, ignored for an exact id) before `around_timestamp`, `roles` and `limit`
//! apply; markdown (default) or `{sessions, messages, message_count}`.

use std::sync::Arc;

use serde_json::{Value, json};

use super::RelayTool;
use super::args::{
    clamped_limit, instant, nanos, optional_text, reject_unknown, required_text, text_list,
};
use super::markdown::{self, ShownSession};
use super::messages::{Role, Roles, Window, chain_messages};
use super::reply::{RelayError, Response, Shape};
use super::sessions::{self, RelaySession};
use crate::service::catalog::WarmSnapshot;
use crate::service::chain::parse_session_range;
use crate::service::validate::Arguments;

const FIELDS: [&str; 6] = [
    "session_id_or_slug",
    "around_timestamp",
    "roles",
    "limit",
    "format",
    "session",
];
const DEFAULT_LIMIT: i64 = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Json,
}

/// A validated request.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationRequest {
    pub id_or_slug: String,
    pub window: Window,
    pub roles: Roles,
    pub format: Format,
    /// The session range, as given (empty is no range, as relay-search reads it).
    pub session: Option<String>,
}

pub struct GetConversation;

impl RelayTool for GetConversation {
    type Request = ConversationRequest;

    const NAME: &'static str = "get_conversation";
    const SHAPE: Shape = Shape::Object;

    fn parse(arguments: &Arguments) -> Result<ConversationRequest, RelayError> {
        reject_unknown(arguments, &FIELDS)?;
        let id_or_slug = required_text(arguments, "session_id_or_slug")?.to_owned();
        let format = match optional_text(arguments, "format")?.unwrap_or("markdown") {
            "markdown" => Format::Markdown,
            "json" => Format::Json,
            other => {
                return Err(RelayError::new(format!(
                    "Invalid format: {other}. Must be 'markdown' or 'json'."
                )));
            }
        };
        let limit = clamped_limit(arguments, DEFAULT_LIMIT)?;
        let window = match instant(arguments, "around_timestamp")? {
            Some(time) => Window::Around(nanos(time)),
            None => Window::First(limit),
        };
        Ok(ConversationRequest {
            id_or_slug,
            window,
            roles: roles(arguments)?,
            format,
            session: optional_text(arguments, "session")?
                .filter(|range| !range.is_empty())
                .map(str::to_owned),
        })
    }

    async fn execute(
        snapshot: &Arc<WarmSnapshot>,
        request: &ConversationRequest,
    ) -> Result<Response, RelayError> {
        let (chain, positions) = resolve(snapshot, request).await?;
        let shown: Vec<ShownSession<'_>> = positions
            .iter()
            .map(|&position| ShownSession {
                session: &chain[position],
                number: position + 1,
                chain_length: chain.len(),
            })
            .collect();
        let selected: Vec<RelaySession> = shown.iter().map(|s| s.session.clone()).collect();
        let messages = chain_messages(snapshot, &selected, request.roles, request.window).await?;
        if request.format == Format::Markdown {
            return Ok(Response::Markdown(markdown::conversation(
                &shown, &messages,
            )));
        }
        let sessions = sessions::rows_json(snapshot, &selected, false).await?;
        let messages: Vec<Value> = messages
            .iter()
            .map(|message| {
                let native_id = selected
                    .iter()
                    .find(|session| session.session_id == message.session_id)
                    .map_or(message.session_id.as_str(), |session| {
                        session.native_id.as_str()
                    });
                message.to_json(native_id)
            })
            .collect();
        Ok(Response::Object(json!({
            "message_count": messages.len(),
            "sessions": sessions,
            "messages": messages,
        })))
    }
}

/// `roles`: a list of relay roles (empty or absent is every role).
fn roles(arguments: &Arguments) -> Result<Roles, RelayError> {
    let Some(names) = text_list(arguments, "roles")?.filter(|names| !names.is_empty()) else {
        return Ok(Roles::all());
    };
    let roles = names
        .iter()
        .map(|name| {
            Role::parse(name).ok_or_else(|| {
                let known: Vec<&str> = Role::ALL.iter().map(|role| role.as_str()).collect();
                RelayError::new(format!(
                    "Invalid role: {name}. Options: {}",
                    known.join(", ")
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Roles::only(&roles))
}

/// The chain to read and the positions in it selected: an exact id is its session alone (a
/// range is ignored); a slug is its whole chain, narrowed to the range.
async fn resolve(
    snapshot: &WarmSnapshot,
    request: &ConversationRequest,
) -> Result<(Vec<RelaySession>, Vec<usize>), RelayError> {
    if let Some(session) = sessions::by_id(snapshot, &request.id_or_slug).await? {
        let alone = vec![session];
        return Ok((alone, vec![0]));
    }
    let chain = sessions::chain(snapshot, &request.id_or_slug).await?;
    if chain.is_empty() {
        return Err(RelayError::new(format!(
            "Session not found: {}",
            request.id_or_slug
        )));
    }
    let positions = match &request.session {
        Some(range) => parse_session_range(range, chain.len()).map_err(RelayError::new)?,
        None => (0..chain.len()).collect(),
    };
    Ok((chain, positions))
}
