//! Paging of `open` (Moraine's addition to spec 000): with `limit` (and then `cursor`), an
//! open(session) returns at most `limit` of its turns and an open(turn) at most `limit` of its
//! events, with a `next_cursor` bound to the id that ends with null. Without them the
//! spec-000 answer (every child) stands.

use serde_json::{Value, json};

use crate::service::envelope::ToolError;
use crate::service::validate::{
    Arguments, IdKind, McpId, optional_integer_in_range, optional_string,
};

/// Most children one page may hold.
pub const MAX_LIMIT: i64 = 1000;
/// Cursor layout: `opc1.<offset>.<limit>.<id>` (ids never contain `.`).
const VERSION_TAG: &str = "opc1";

/// Which children of the opened id to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub limit: usize,
}

/// The page a request asks for: `None` without `limit` and `cursor`.
pub fn requested(arguments: &Arguments, id: &McpId) -> Result<Option<Page>, ToolError> {
    let limit = optional_integer_in_range(arguments, "limit", 1, MAX_LIMIT)?;
    let cursor = optional_string(arguments, "cursor")?;
    if limit.is_none() && cursor.is_none() {
        return Ok(None);
    }
    if id.kind == IdKind::Event {
        return Err(ToolError::invalid_request(
            "limit",
            "limit and cursor page a session's turns or a turn's events; an event opens whole",
        ));
    }
    let page = match cursor {
        None => Page {
            offset: 0,
            limit: limit.unwrap_or(MAX_LIMIT) as usize,
        },
        Some(cursor) => {
            let (page, cursor_id) = decode(cursor).ok_or_else(|| {
                ToolError::invalid_request("cursor", "cursor is not a cursor returned by open")
            })?;
            if cursor_id != id.text {
                return Err(ToolError::invalid_request(
                    "cursor",
                    "cursor was issued for a different id",
                ));
            }
            Page {
                offset: page.offset,
                limit: limit.map_or(page.limit, |limit| limit as usize),
            }
        }
    };
    Ok(Some(page))
}

pub fn encode(page: Page, id: &str) -> String {
    format!("{VERSION_TAG}.{}.{}.{id}", page.offset, page.limit)
}

fn decode(cursor: &str) -> Option<(Page, &str)> {
    let mut parts = cursor.splitn(4, '.');
    if parts.next()? != VERSION_TAG {
        return None;
    }
    let offset = parts.next()?.parse().ok()?;
    let limit: usize = parts.next()?.parse().ok()?;
    let id = parts.next()?;
    let valid_id = McpId::parse(id).is_some_and(|parsed| parsed.kind != IdKind::Event);
    (valid_id && (1..=MAX_LIMIT as usize).contains(&limit)).then_some((Page { offset, limit }, id))
}

/// Cuts the children array of an open answer (`turns` or `events`) to `page`, adding
/// `next_cursor` (null on the last page) and `page {offset, limit, total}`.
pub fn apply(data: &mut Value, page: Page, id: &str) {
    let Some(object) = data.as_object_mut() else {
        return;
    };
    let key = if object.contains_key("turns") {
        "turns"
    } else {
        "events"
    };
    let Some(Value::Array(children)) = object.get_mut(key) else {
        return;
    };
    let total = children.len();
    let start = page.offset.min(total);
    let end = start.saturating_add(page.limit).min(total);
    let kept: Vec<Value> = children.drain(start..end).collect();
    *children = kept;
    let next_cursor = (end < total).then(|| {
        encode(
            Page {
                offset: end,
                limit: page.limit,
            },
            id,
        )
    });
    object.insert("next_cursor".to_string(), json!(next_cursor));
    object.insert(
        "page".to_string(),
        json!({"offset": start, "limit": page.limit, "total": total}),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> McpId {
        McpId::parse("session:abc").unwrap()
    }

    fn arguments(value: Value) -> Arguments {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn pages_walk_every_child_once_and_end_with_null() {
        let id = session();
        let all: Vec<Value> = (0..7).map(|n| json!({"ordinal": n})).collect();
        let mut seen = Vec::new();
        let mut request = arguments(json!({"id": id.text, "limit": 3}));
        loop {
            let page = requested(&request, &id).unwrap().unwrap();
            let mut data = json!({"turns": all.clone()});
            apply(&mut data, page, &id.text);
            seen.extend(data["turns"].as_array().unwrap().iter().cloned());
            assert!(data["turns"].as_array().unwrap().len() <= 3);
            match data["next_cursor"].as_str() {
                Some(cursor) => request = arguments(json!({"id": id.text, "cursor": cursor})),
                None => break,
            }
        }
        assert_eq!(seen, all);
    }

    #[test]
    fn a_cursor_is_bound_to_its_id_and_events_do_not_page() {
        let cursor = encode(
            Page {
                offset: 2,
                limit: 2,
            },
            "session:abc",
        );
        let other = McpId::parse("session:xyz").unwrap();
        let error = requested(&arguments(json!({"cursor": cursor})), &other).unwrap_err();
        assert!(error.message.contains("different id"));
        let event = McpId::parse("event:e1").unwrap();
        assert!(requested(&arguments(json!({"limit": 2})), &event).is_err());
        let garbage = requested(
            &arguments(json!({"cursor": "opc1.x.2.session:abc"})),
            &session(),
        );
        assert!(garbage.is_err());
        assert_eq!(requested(&arguments(json!({})), &session()).unwrap(), None);
    }
}
