//! The opaque `list_sessions` cursor: the keyset position (updated_at, session id) of the last
//! session of a page, bound to a fingerprint of the filter and sort that produced it.

use crate::service::validate::{IdKind, McpId};

/// Cursor layout: `lsc1.<filter fingerprint>.<updated_at nanos>.<rank>.<session id>` (session
/// ids never contain `.`). Opaque to callers; readable for debugging.
const VERSION_TAG: &str = "lsc1";
const SEPARATOR: char = '.';

/// Largest rank a cursor may carry: far past any real listing, and small enough that the next
/// page's ranks (`rank + 1 ..= rank + limit`) cannot overflow or lose precision in JSON.
pub const MAX_RANK: usize = u32::MAX as usize;

/// Where the next page starts: strictly after this session in the listing order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeysetPosition {
    /// `updated_at` of the last listed session, UTC nanoseconds.
    pub updated_at_nanos: i64,
    pub session_id: String,
    /// Rank of that session, so the next page's ranks continue from it.
    pub rank: usize,
}

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    #[error("cursor is not a cursor returned by list_sessions")]
    Malformed,
    #[error("cursor was issued for a different filter or sort")]
    FilterChanged,
}

/// A stable fingerprint of the listing's filter and sort (FNV-1a 64 of its canonical text).
pub fn filter_fingerprint(canonical_filter: &str) -> String {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = canonical_filter.bytes().fold(OFFSET_BASIS, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    });
    format!("{hash:016x}")
}

pub fn encode(filter_fingerprint: &str, position: &KeysetPosition) -> String {
    format!(
        "{VERSION_TAG}{SEPARATOR}{filter_fingerprint}{SEPARATOR}{}{SEPARATOR}{}{SEPARATOR}{}",
        position.updated_at_nanos, position.rank, position.session_id
    )
}

pub fn decode(cursor: &str, expected_fingerprint: &str) -> Result<KeysetPosition, CursorError> {
    let parts: Vec<&str> = cursor.split(SEPARATOR).collect();
    let [VERSION_TAG, fingerprint, nanos, rank, session_id] = parts.as_slice() else {
        return Err(CursorError::Malformed);
    };
    let names_a_session = McpId::parse(session_id).is_some_and(|id| id.kind == IdKind::Session);
    let is_fingerprint =
        fingerprint.len() == 16 && fingerprint.bytes().all(|byte| byte.is_ascii_hexdigit());
    let position = match (nanos.parse::<i64>(), rank.parse::<usize>()) {
        (Ok(updated_at_nanos), Ok(rank))
            if names_a_session && is_fingerprint && rank <= MAX_RANK =>
        {
            KeysetPosition {
                updated_at_nanos,
                session_id: (*session_id).to_owned(),
                rank,
            }
        }
        _ => return Err(CursorError::Malformed),
    };
    if *fingerprint != expected_fingerprint {
        return Err(CursorError::FilterChanged);
    }
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position() -> KeysetPosition {
        KeysetPosition {
            updated_at_nanos: 1_777_488_151_125_000_000,
            session_id: "session:abc_1".into(),
            rank: 20,
        }
    }

    #[test]
    fn cursors_round_trip_for_the_same_filter() {
        let fingerprint = filter_fingerprint("a|b|null|desc");
        let cursor = encode(&fingerprint, &position());
        assert_eq!(decode(&cursor, &fingerprint).unwrap(), position());
    }

    #[test]
    fn a_changed_filter_is_refused() {
        let cursor = encode(&filter_fingerprint("a|b|null|desc"), &position());
        let other = filter_fingerprint("a|b|null|asc");
        assert_eq!(decode(&cursor, &other), Err(CursorError::FilterChanged));
    }

    #[test]
    fn garbage_is_refused() {
        let fingerprint = filter_fingerprint("x");
        let valid = encode(&fingerprint, &position());
        let wrong_kind = valid.replace("session:", "turn:");
        let bad_number = valid.replace(".20.", ".x.");
        let absurd_rank = valid.replace(".20.", &format!(".{}.", usize::MAX));
        for garbage in [
            "",
            "lsc1",
            "lsc1.zz",
            "hello",
            "a.b.c.d.e",
            &wrong_kind,
            &bad_number,
            &absurd_rank,
        ] {
            assert_eq!(
                decode(garbage, &fingerprint),
                Err(CursorError::Malformed),
                "{garbage}"
            );
        }
    }
}
