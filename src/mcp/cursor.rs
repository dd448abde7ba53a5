//! The opaque `list_sessions` cursor: the keyset position (updated_at, session id) of the last
//! session of a page, bound to a fingerprint of the filter and sort that produced it.

use serde::{Deserialize, Serialize};

use crate::mcp::validate::{IdKind, McpId};

const PREFIX: &str = "lsc1_";

/// Where the next page starts: strictly after this session in the listing order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeysetPosition {
    /// `updated_at` of the last listed session, UTC nanoseconds.
    #[serde(rename = "u")]
    pub updated_at_nanos: i64,
    #[serde(rename = "s")]
    pub session_id: String,
    /// Rank of that session, so the next page's ranks continue from it.
    #[serde(rename = "r")]
    pub rank: usize,
}

#[derive(Debug, Serialize, Deserialize)]
struct CursorBody {
    #[serde(rename = "f")]
    filter_fingerprint: String,
    #[serde(flatten)]
    position: KeysetPosition,
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
    let body = CursorBody {
        filter_fingerprint: filter_fingerprint.to_owned(),
        position: position.clone(),
    };
    let json = serde_json::to_vec(&body).expect("cursor body serializes");
    let hex: String = json.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("{PREFIX}{hex}")
}

pub fn decode(cursor: &str, expected_fingerprint: &str) -> Result<KeysetPosition, CursorError> {
    let hex = cursor.strip_prefix(PREFIX).ok_or(CursorError::Malformed)?;
    let bytes = decode_hex(hex).ok_or(CursorError::Malformed)?;
    let body: CursorBody = serde_json::from_slice(&bytes).map_err(|_| CursorError::Malformed)?;
    let names_a_session =
        McpId::parse(&body.position.session_id).is_some_and(|id| id.kind == IdKind::Session);
    if !names_a_session {
        return Err(CursorError::Malformed);
    }
    if body.filter_fingerprint != expected_fingerprint {
        return Err(CursorError::FilterChanged);
    }
    Ok(body.position)
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) || !hex.is_ascii() {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|index| u8::from_str_radix(&hex[index..index + 2], 16).ok())
        .collect()
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
        for garbage in ["", "lsc1_", "lsc1_zz", "lsc1_7b7d", "hello", "lsc1_7"] {
            assert_eq!(
                decode(garbage, &fingerprint),
                Err(CursorError::Malformed),
                "{garbage}"
            );
        }
    }
}
