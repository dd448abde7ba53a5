//! Pages of a `file_attention` listing and their opaque cursors: the keyset position (time,
//! id, path) of the last item of a page, bound to a fingerprint of the request's filter, so a
//! later page never repeats an item even when new touches were indexed in between.

use std::cmp::Ordering;

use crate::service::cursor::MAX_RANK;
use crate::service::envelope::ToolError;
use crate::service::validate::McpId;

/// Cursor layout: `fac1.<filter fingerprint>.<nanos>.<rank>.<id>.<path>` (ids never contain
/// `.`; the path is last and may). Opaque to callers.
const VERSION_TAG: &str = "fac1";
const SEPARATOR: char = '.';

/// Where the next page starts: strictly after this item in the listing order (time
/// descending, then id and path ascending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PagePosition {
    /// UTC nanoseconds of the item's (last) touch.
    pub nanos: i64,
    /// The session id (sessions) or event id (events) of the item.
    pub id: String,
    /// The matched path of an event item; empty for sessions.
    pub path: String,
    /// Rank of that item, so the next page's ranks continue from it.
    pub rank: usize,
}

/// The sort key of one listed item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemKey<'a> {
    pub nanos: i64,
    pub id: &'a str,
    pub path: &'a str,
}

impl ItemKey<'_> {
    /// Listing order: newest first, then id, then path.
    pub fn order(&self, other: &ItemKey<'_>) -> Ordering {
        other
            .nanos
            .cmp(&self.nanos)
            .then_with(|| self.id.cmp(other.id))
            .then_with(|| self.path.cmp(other.path))
    }

    fn is_after(&self, position: &PagePosition) -> bool {
        let position_key = ItemKey {
            nanos: position.nanos,
            id: &position.id,
            path: &position.path,
        };
        self.order(&position_key) == Ordering::Greater
    }
}

/// One page of `items` (already in listing order): at most `limit` items after `after`, each
/// with its rank, whether more follow, and the position of the last one.
pub fn page_of<'a, T>(
    items: &'a [T],
    key: impl Fn(&'a T) -> ItemKey<'a>,
    after: Option<&PagePosition>,
    limit: usize,
) -> Page<'a, T> {
    let first_rank = after.map_or(0, |position| position.rank) + 1;
    let mut remaining = items
        .iter()
        .filter(|item| after.is_none_or(|position| key(item).is_after(position)));
    let shown: Vec<(usize, &T)> = remaining
        .by_ref()
        .take(limit)
        .enumerate()
        .map(|(offset, item)| (first_rank + offset, item))
        .collect();
    let has_more = remaining.next().is_some();
    let last = shown.last().map(|(rank, item)| {
        let key = key(item);
        PagePosition {
            nanos: key.nanos,
            id: key.id.to_owned(),
            path: key.path.to_owned(),
            rank: *rank,
        }
    });
    Page {
        items: shown,
        has_more,
        last,
    }
}

/// What [`page_of`] returns.
pub struct Page<'a, T> {
    pub items: Vec<(usize, &'a T)>,
    pub has_more: bool,
    pub last: Option<PagePosition>,
}

pub fn encode_cursor(fingerprint: &str, position: &PagePosition) -> String {
    format!(
        "{VERSION_TAG}{SEPARATOR}{fingerprint}{SEPARATOR}{}{SEPARATOR}{}{SEPARATOR}{}{SEPARATOR}{}",
        position.nanos, position.rank, position.id, position.path
    )
}

/// Decodes a cursor issued for the request whose filter has `expected_fingerprint`.
pub fn decode_cursor(text: &str, expected_fingerprint: &str) -> Result<PagePosition, ToolError> {
    let malformed = || {
        ToolError::invalid_request(
            "cursor",
            "cursor is not a cursor returned by file_attention",
        )
    };
    let parts: Vec<&str> = text.splitn(6, SEPARATOR).collect();
    let [VERSION_TAG, fingerprint, nanos, rank, id, path] = parts.as_slice() else {
        return Err(malformed());
    };
    let is_fingerprint =
        fingerprint.len() == 16 && fingerprint.bytes().all(|byte| byte.is_ascii_hexdigit());
    let position = match (
        nanos.parse::<i64>(),
        rank.parse::<usize>(),
        McpId::parse(id),
    ) {
        (Ok(nanos), Ok(rank), Some(_)) if is_fingerprint && rank <= MAX_RANK => PagePosition {
            nanos,
            id: (*id).to_owned(),
            path: (*path).to_owned(),
            rank,
        },
        _ => return Err(malformed()),
    };
    if *fingerprint != expected_fingerprint {
        return Err(ToolError::invalid_request(
            "cursor",
            "cursor belongs to a file_attention call with a different path or filter; restart without it",
        ));
    }
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> Vec<(i64, &'static str, &'static str)> {
        vec![
            (30, "event:a", "x.rs"),
            (20, "event:b", "x.rs"),
            (20, "event:c", "x.rs"),
            (10, "event:a", "y.rs"),
        ]
    }

    fn key<'a>(item: &'a (i64, &'static str, &'static str)) -> ItemKey<'a> {
        ItemKey {
            nanos: item.0,
            id: item.1,
            path: item.2,
        }
    }

    #[test]
    fn pages_continue_after_the_last_item_without_repeats() {
        let items = items();
        let first = page_of(&items, key, None, 2);
        assert_eq!(
            first
                .items
                .iter()
                .map(|(rank, _)| *rank)
                .collect::<Vec<_>>(),
            [1, 2]
        );
        assert!(first.has_more);
        let cursor = encode_cursor("0123456789abcdef", first.last.as_ref().unwrap());
        let position = decode_cursor(&cursor, "0123456789abcdef").unwrap();
        let second = page_of(&items, key, Some(&position), 2);
        let shown: Vec<_> = second
            .items
            .iter()
            .map(|(rank, item)| (*rank, item.1))
            .collect();
        assert_eq!(shown, [(3, "event:c"), (4, "event:a")]);
        assert!(!second.has_more);
    }

    #[test]
    fn cursors_are_bound_to_their_filter_and_well_formed() {
        let position = PagePosition {
            nanos: 5,
            id: "session:s1".into(),
            path: String::new(),
            rank: 3,
        };
        let cursor = encode_cursor("0123456789abcdef", &position);
        assert!(decode_cursor(&cursor, "fedcba9876543210").is_err());
        for garbage in [
            "",
            "fac1",
            "fac1.zz.1.1.session:s.",
            "lsc1.0123456789abcdef.1.1.session:s1.",
        ] {
            assert!(
                decode_cursor(garbage, "0123456789abcdef").is_err(),
                "{garbage}"
            );
        }
        let dotted = PagePosition {
            path: "a.b/c.rs".into(),
            ..position
        };
        let cursor = encode_cursor("0123456789abcdef", &dotted);
        assert_eq!(decode_cursor(&cursor, "0123456789abcdef").unwrap(), dotted);
    }
}
