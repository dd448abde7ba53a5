//! open({id, sessions}): the chain of a session narrowed to a relay-style session range
//! (`"4"`, `"4-5"`, `"1,3-5"`), each selected member opened as open(session) opens it, in
//! chain order.

use datafusion::common::ScalarValue;
use serde_json::{Value, json};

use super::{row_error, session};
use crate::service::catalog::{NamedQuery, WarmSnapshot, text_parameter};
use crate::service::chain::parse_session_range;
use crate::service::envelope::{ToolError, ToolSuccess};

const CHAIN_ID: NamedQuery = NamedQuery {
    name: "open_chain_id",
    sql: include_str!("../../../queries/open_chain_id.sql"),
};
const MEMBERS: NamedQuery = NamedQuery {
    name: "open_chain_members",
    sql: include_str!("../../../queries/open_chain_members.sql"),
};

pub async fn open(
    snapshot: &WarmSnapshot,
    session_id: &str,
    range: &str,
) -> Result<ToolSuccess, ToolError> {
    let members = chain_members(snapshot, session_id).await?;
    let members = members_in_scope(snapshot, members).await?;
    if members.is_empty() {
        return Err(ToolError::not_found("session", session_id));
    }
    let positions = parse_session_range(range, members.len())
        .map_err(|message| ToolError::invalid_request("sessions", message))?;
    // The selected members open together: three statements for all of them.
    let selected: Vec<&str> = positions
        .iter()
        .map(|&position| members[position].as_str())
        .collect();
    let opened_members = session::open_many(snapshot, &selected)
        .await?
        .into_iter()
        .zip(&selected)
        .map(|(member, id)| member.ok_or_else(|| ToolError::not_found("session", id)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut opened = Vec::with_capacity(positions.len());
    let mut text = format!(
        "sessions {range} of the {}-session chain of {session_id}",
        members.len()
    );
    for (position, member) in positions.into_iter().zip(opened_members) {
        text.push_str(&format!(
            "\n\n--- session {} of {} ---\n",
            position + 1,
            members.len()
        ));
        text.push_str(&member.text);
        let mut data = member.data;
        data["session_number"] = json!(position + 1);
        opened.push(data);
    }
    let data = json!({
        "kind": "session_range",
        "sessions": range,
        "session_count": members.len(),
        "members": Value::Array(opened),
    });
    Ok(ToolSuccess::new(data, text))
}

/// The sessions of the chain `session_id` belongs to, in chain order (empty when the session
/// is unknown): its chain id first, then the chain's members, both by key.
async fn chain_members(
    snapshot: &WarmSnapshot,
    session_id: &str,
) -> Result<Vec<String>, ToolError> {
    let chain_rows = snapshot
        .run(CHAIN_ID, vec![text_parameter(session_id)])
        .await?;
    let Some(chain_row) = chain_rows.iter().next() else {
        return Ok(Vec::new());
    };
    let chain_id = chain_row
        .opt_string("chain_id")
        .map_err(row_error(CHAIN_ID.name))?;
    let chain_parameter = ScalarValue::Utf8(chain_id.map(str::to_owned));
    let rows = snapshot
        .run(MEMBERS, vec![text_parameter(session_id), chain_parameter])
        .await?;
    rows.iter()
        .map(|row| row.string("session_id").map(str::to_owned))
        .collect::<Result<Vec<_>, _>>()
        .map_err(row_error(MEMBERS.name))
}

/// The chain as a project-only server sees it: its members inside the project, in order.
async fn members_in_scope(
    snapshot: &WarmSnapshot,
    mut members: Vec<String>,
) -> Result<Vec<String>, ToolError> {
    if let Some(in_scope) = snapshot.sessions_in_scope().await? {
        members.retain(|member| in_scope.contains(member));
    }
    Ok(members)
}
