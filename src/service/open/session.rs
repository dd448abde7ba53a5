//! open(session): session metadata, a compact summary of every turn, and the session's
//! continuation, parent and sub-agent links.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::{
    LARGE_SESSION_TURNS, SLA_LARGE_SESSION, excerpt_json, json_array_column, row_error,
    timestamp_json,
};
use crate::model::harness_of;
use crate::service::catalog::{NamedQuery, WarmSnapshot, text_list_parameter};
use crate::service::chain::row_chain_json;
use crate::service::envelope::{ToolError, ToolSuccess};
use crate::service::rows::{Row, RowError, Rows};
use crate::service::text::plain;
use crate::service::usage::row_usage_json;

const SESSION: NamedQuery = NamedQuery {
    name: "open_session",
    sql: include_str!("../../../queries/open_session.sql"),
};
const TURNS: NamedQuery = NamedQuery {
    name: "open_session_turns",
    sql: include_str!("../../../queries/open_session_turns.sql"),
};
const CHILDREN: NamedQuery = NamedQuery {
    name: "open_session_children",
    sql: include_str!("../../../queries/open_session_children.sql"),
};

pub async fn open(snapshot: &WarmSnapshot, session_id: &str) -> Result<ToolSuccess, ToolError> {
    open_many(snapshot, &[session_id])
        .await?
        .pop()
        .flatten()
        .ok_or_else(|| ToolError::not_found("session", session_id))
}

/// Each of `session_ids` opened as open(session) opens it, in order, from three statements
/// for all of them (a chain range opens its members at the cost of one session); `None` for
/// an id with no session row.
pub async fn open_many(
    snapshot: &WarmSnapshot,
    session_ids: &[&str],
) -> Result<Vec<Option<ToolSuccess>>, ToolError> {
    let ids = text_list_parameter(session_ids);
    // One session's rows are in one file of each table; a chain range's members are spread
    // over a file per bucket, read across the cores.
    let run = |query, parameters| async move {
        match session_ids.len() {
            0 | 1 => snapshot.run(query, parameters).await,
            _ => snapshot.run_spread(query, parameters).await,
        }
    };
    let (session_rows, turn_rows, child_rows) = tokio::try_join!(
        run(SESSION, vec![ids.clone()]),
        run(TURNS, vec![ids.clone()]),
        run(CHILDREN, vec![ids]),
    )?;
    let sessions = rows_by(&session_rows, "session_id").map_err(row_error(SESSION.name))?;
    let turns = rows_by(&turn_rows, "session_id").map_err(row_error(TURNS.name))?;
    let children = rows_by(&child_rows, "parent_session_id").map_err(row_error(CHILDREN.name))?;
    session_ids
        .iter()
        .map(|&id| {
            let Some(session_row) = sessions.get(id).and_then(|rows| rows.first()) else {
                return Ok(None);
            };
            let no_rows = Vec::new();
            let turn_rows = turns.get(id).unwrap_or(&no_rows);
            let child_rows = children.get(id).unwrap_or(&no_rows);
            opened(session_row, turn_rows, child_rows).map(Some)
        })
        .collect()
}

/// The rows of `rows` grouped by the value of `key`, each group in statement order.
fn rows_by<'a>(rows: &'a Rows, key: &str) -> Result<HashMap<&'a str, Vec<Row<'a>>>, RowError> {
    let mut grouped: HashMap<&str, Vec<Row<'_>>> = HashMap::new();
    for row in rows.iter() {
        grouped.entry(row.string(key)?).or_default().push(row);
    }
    Ok(grouped)
}

/// One session's open(session) answer from its session row, turn rows and child rows.
fn opened(
    session_row: &Row<'_>,
    turn_rows: &[Row<'_>],
    child_rows: &[Row<'_>],
) -> Result<ToolSuccess, ToolError> {
    let session = session_json(session_row).map_err(row_error(SESSION.name))?;
    let turns = turn_rows
        .iter()
        .map(turn_summary_json)
        .collect::<Result<Vec<_>, _>>()
        .map_err(row_error(TURNS.name))?;
    let traversal = traversal_json(session_row, child_rows).map_err(row_error(CHILDREN.name))?;
    let text = summarize(&session, &turns);
    let sla_override = (turns.len() > LARGE_SESSION_TURNS).then_some(SLA_LARGE_SESSION);
    let data = json!({
        "kind": "session",
        "session": session,
        "turns": turns,
        "traversal": traversal,
    });
    Ok(ToolSuccess {
        sla_override,
        ..ToolSuccess::new(data, text)
    })
}

fn session_json(row: &Row<'_>) -> Result<Value, RowError> {
    Ok(json!({
        "id": row.string("session_id")?,
        "title": row.string("title")?,
        "source": row.string("source")?,
        "harness": harness_of(row.string("source")?),
        "started_at": timestamp_json(row, "started_at")?,
        "updated_at": timestamp_json(row, "updated_at")?,
        "completed": row.bool("completed")?,
        "turn_count": row.i64("turn_count")?,
        "event_count": row.i64("event_count")?,
        "mode": row.string("mode")?,
        "session_slug": row.opt_string("session_slug")?,
        "session_summary": row.opt_string("session_summary")?,
        "project": row.opt_string("project")?,
        "cwd": row.opt_string("cwd")?,
        "git_branch": row.opt_string("git_branch")?,
        "model": row.opt_string("model")?,
        "agent_name": row.opt_string("agent_name")?,
        "models": json_array_column(row, "models")?,
        "usage": row_usage_json(row)?,
        "chain": row_chain_json(row)?,
        "resume_command": resume_command_json(row)?,
    }))
}

/// The harness's own command that resumes the session (`cd DIR && claude --resume ID`), or
/// null for a sub-agent (its top-level session resumes it) and harnesses without one.
fn resume_command_json(row: &Row<'_>) -> Result<Value, RowError> {
    if row.opt_string("parent_session_id")?.is_some() {
        return Ok(Value::Null);
    }
    Ok(crate::resume::resume_line(
        row.string("source")?,
        row.string("native_id")?,
        row.string("source_path")?,
        row.opt_string("cwd")?,
    )
    .map_or(Value::Null, Value::String))
}

/// The spec's turn summary shape.
fn turn_summary_json(row: &Row<'_>) -> Result<Value, RowError> {
    let turn_id = row.string("turn_id")?;
    let terminal_event_id = row.opt_string("terminal_event_id")?;
    Ok(json!({
        "id": turn_id,
        "ordinal": row.i64("ordinal")?,
        "completed": row.bool("completed")?,
        "terminal_event_id": terminal_event_id,
        "event_count": row.i64("event_count")?,
        "started_at": timestamp_json(row, "started_at")?,
        "updated_at": timestamp_json(row, "updated_at")?,
        "user_input": excerpt_json(row, "user_input")?,
        "final_response": excerpt_json(row, "final_response")?,
        "tools_called": json_array_column(row, "tools_called")?,
        "event_types": json_array_column(row, "event_types")?,
        "usage": row_usage_json(row)?,
        "open": {
            "turn_id": turn_id,
            "terminal_event_id": terminal_event_id,
        },
    }))
}

/// Continuation chain (`previous_session_id`/`next_session_id`) plus the additive parent,
/// fork and sub-agent links.
fn traversal_json(row: &Row<'_>, child_rows: &[Row<'_>]) -> Result<Value, RowError> {
    let child_session_ids = child_rows
        .iter()
        .map(|child| child.string("session_id").map(str::to_owned))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({
        "previous_session_id": row.opt_string("previous_session_id")?,
        "next_session_id": row.opt_string("next_session_id")?,
        "parent_session_id": row.opt_string("parent_session_id")?,
        "forked_from_session_id": row.opt_string("forked_from_session_id")?,
        "child_session_ids": child_session_ids,
    }))
}

fn summarize(session: &Value, turns: &[Value]) -> String {
    let mut text = format!(
        "session {} \"{}\" ({}, {} turns, {} events, {}completed) {} .. {}",
        plain(&session["id"]),
        plain(&session["title"]),
        plain(&session["source"]),
        session["turn_count"],
        session["event_count"],
        if session["completed"] == true {
            ""
        } else {
            "not "
        },
        plain(&session["started_at"]),
        plain(&session["updated_at"]),
    );
    for turn in turns {
        let prompt = turn["user_input"]["text"]
            .as_str()
            .unwrap_or("(no user input)");
        text.push_str(&format!(
            "\n{}. {} {}: {}",
            turn["ordinal"],
            plain(&turn["id"]),
            if turn["completed"] == true {
                "completed"
            } else {
                "incomplete"
            },
            prompt,
        ));
    }
    text
}
