//! Typed, opaque, stable MCP ids (`session:`, `turn:`, `event:`) derived from harness identity.

use crate::model::Source;

/// Longest id body accepted as well-formed.
pub const MAX_ID_BODY_LEN: usize = 256;

/// The kind of object an id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Session,
    Turn,
    Event,
}

impl IdKind {
    pub fn prefix(self) -> &'static str {
        match self {
            IdKind::Session => "session:",
            IdKind::Turn => "turn:",
            IdKind::Event => "event:",
        }
    }

    pub fn noun(self) -> &'static str {
        match self {
            IdKind::Session => "session",
            IdKind::Turn => "turn",
            IdKind::Event => "event",
        }
    }
}

/// Classifies a well-formed id: a known prefix followed by a non-empty body of at most
/// [`MAX_ID_BODY_LEN`] characters from `[A-Za-z0-9_-]`. Anything else is `None`.
pub fn classify_id(id: &str) -> Option<IdKind> {
    [IdKind::Session, IdKind::Turn, IdKind::Event]
        .into_iter()
        .find_map(|kind| {
            let body = id.strip_prefix(kind.prefix())?;
            is_valid_body(body).then_some(kind)
        })
}

fn is_valid_body(body: &str) -> bool {
    !body.is_empty()
        && body.len() <= MAX_ID_BODY_LEN
        && body
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// `session:<source>-<native id>`, keeping the harness's id readable when it is already made of
/// id-safe characters, hashed otherwise.
pub fn session_id(source: Source, native_id: &str) -> String {
    let readable_body = format!("{}-{}", source.as_str(), native_id);
    if is_valid_body(&readable_body) && readable_body.len() <= 200 {
        format!("session:{readable_body}")
    } else {
        format!(
            "session:{}-h{}",
            source.as_str(),
            stable_hash_hex(&[native_id.as_bytes()])
        )
    }
}

/// `turn:turn_<hash>` from the session and the key of the turn's first event.
pub fn turn_id(session_id: &str, first_event_key: &str) -> String {
    format!(
        "turn:turn_{}",
        stable_hash_hex(&[session_id.as_bytes(), first_event_key.as_bytes()])
    )
}

/// `event:evt_<hash>` from the session and the event's stable key.
pub fn event_id(session_id: &str, event_key: &str) -> String {
    format!(
        "event:evt_{}",
        stable_hash_hex(&[session_id.as_bytes(), event_key.as_bytes()])
    )
}

/// The 64-bit key the search index looks an event id up by: the high half of its
/// [`stable_hash`] (FNV's low bits mix poorly). Not unique: a lookup checks the id itself.
pub fn event_key(event_id: &str) -> u64 {
    (stable_hash(&[event_id.as_bytes()]) >> 64) as u64
}

/// 128-bit FNV-1a over the parts (with a separator), as 32 hex digits. Stable across Rust
/// releases and platforms, unlike `std`'s hashers.
pub fn stable_hash_hex(parts: &[&[u8]]) -> String {
    format!("{:032x}", stable_hash(parts))
}

pub fn stable_hash(parts: &[&[u8]]) -> u128 {
    let mut hasher = StableHasher::new();
    for (index, part) in parts.iter().enumerate() {
        if index > 0 {
            hasher.update(&[0x1f]);
        }
        hasher.update(part);
    }
    hasher.finish()
}

/// Incremental 128-bit FNV-1a: `update` over consecutive pieces equals one `stable_hash` of
/// their concatenation (a single part). Cheap to copy, so a reader can keep a rollback point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StableHasher {
    state: u128,
}

impl StableHasher {
    const OFFSET_BASIS: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;

    pub fn new() -> StableHasher {
        StableHasher {
            state: StableHasher::OFFSET_BASIS,
        }
    }

    pub fn update(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.state ^= u128::from(byte);
            self.state = self.state.wrapping_mul(StableHasher::PRIME);
        }
    }

    pub fn finish(&self) -> u128 {
        self.state
    }

    pub fn finish_hex(&self) -> String {
        format!("{:032x}", self.state)
    }
}

impl Default for StableHasher {
    fn default() -> StableHasher {
        StableHasher::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_keys_are_stable_and_tell_generated_ids_apart() {
        let first = event_id("session:codex-a", "line:1");
        let second = event_id("session:codex-a", "line:2");
        // Keys are written into indexes: they must never change.
        assert_eq!(
            event_key("event:evt_0123456789abcdef0123456789abcdef"),
            0xb47f_848e_3abd_13b5
        );
        assert_ne!(event_key(&first), event_key(&second));
        let keys: std::collections::HashSet<u64> = (0..100_000)
            .map(|line| event_key(&event_id("session:codex-a", &format!("line:{line}"))))
            .collect();
        assert_eq!(keys.len(), 100_000);
    }

    #[test]
    fn well_formed_ids_classify() {
        assert_eq!(classify_id("session:codex-0198"), Some(IdKind::Session));
        assert_eq!(classify_id("turn:turn_ab"), Some(IdKind::Turn));
        assert_eq!(
            classify_id("event:evt_01J9DOESNOTEXIST000000000000"),
            Some(IdKind::Event)
        );
        for malformed in [
            "not-a-valid-id",
            "event:",
            "event:has space",
            "session:a/b",
            "Event:abc",
        ] {
            assert_eq!(classify_id(malformed), None, "{malformed}");
        }
        let too_long = format!("event:{}", "a".repeat(MAX_ID_BODY_LEN + 1));
        assert_eq!(classify_id(&too_long), None);
    }

    #[test]
    fn derived_ids_are_stable_and_well_formed() {
        let session = session_id(Source::Codex, "019d3cf7-965c-7fb0-8eca-afeca7fe7b00");
        assert_eq!(
            session,
            "session:codex-019d3cf7-965c-7fb0-8eca-afeca7fe7b00"
        );
        let odd_session = session_id(Source::Gemini, "a b/c");
        assert_eq!(classify_id(&odd_session), Some(IdKind::Session));
        let event = event_id(&session, "L42");
        assert_eq!(event, event_id(&session, "L42"));
        assert_ne!(event, event_id(&session, "L43"));
        assert_eq!(classify_id(&event), Some(IdKind::Event));
        assert_eq!(classify_id(&turn_id(&session, "L1")), Some(IdKind::Turn));
    }

    #[test]
    fn hash_separates_parts() {
        assert_ne!(stable_hash(&[b"ab", b"c"]), stable_hash(&[b"a", b"bc"]));
    }
}
