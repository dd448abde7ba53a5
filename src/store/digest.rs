//! Content digests of a session's event rows, kept in the state so a commit can tell, without
//! reading the stored rows, that an updated session only gained events at its end (then only
//! the new rows are written).

use std::hash::{Hash, Hasher};

use sha2::{Digest, Sha256};

use super::rows::EventRow;

/// The digests of one session's events for a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDigests {
    /// Digest of the first `prefix_len` events (the count stored before), when asked for.
    pub prefix: Option<String>,
    /// Digest of all the events.
    pub all: String,
}

/// Digests `events` once, taking the digest of the first `prefix_len` rows on the way
/// (`None` when `prefix_len` is zero or exceeds the rows).
pub fn event_digests(events: &[EventRow], prefix_len: usize) -> EventDigests {
    let mut hasher = RowHasher::default();
    let mut prefix = None;
    for (index, event) in events.iter().enumerate() {
        event.hash(&mut hasher);
        if index + 1 == prefix_len {
            prefix = Some(hasher.clone().hex());
        }
    }
    EventDigests {
        prefix,
        all: hasher.hex(),
    }
}

/// Feeds `std::hash::Hash` output into SHA-256 (lengths and field separators come from the
/// `Hash` impls, so concatenations cannot collide). The digest depends on the field layout of
/// the rows: a build that changes it only makes the next commit of each session a full
/// rewrite, never a wrong one.
#[derive(Default, Clone)]
struct RowHasher(Sha256);

impl RowHasher {
    /// The first 128 bits as 32 hex digits.
    fn hex(self) -> String {
        self.0.finalize()[..16]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

impl Hasher for RowHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// Unused: the digest is read with [`RowHasher::hex`].
    fn finish(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::rows::sample_event;

    fn event_row(session: &str, seq: i64, text: &str) -> EventRow {
        EventRow {
            ordinal: seq as i32,
            seq,
            source_line: seq,
            ..sample_event(&format!("{session}:{seq}"), session, text)
        }
    }

    #[test]
    fn the_prefix_digest_equals_the_digest_of_the_prefix_alone() {
        let events: Vec<EventRow> = (0..5).map(|seq| event_row("s", seq, "text")).collect();
        let whole = event_digests(&events, 3);
        let prefix_only = event_digests(&events[..3], 0);
        assert_eq!(whole.prefix.as_deref(), Some(prefix_only.all.as_str()));
        assert_ne!(whole.all, prefix_only.all);
        assert_eq!(event_digests(&events, 0).prefix, None);
        assert_eq!(event_digests(&events, 6).prefix, None);
    }

    #[test]
    fn a_changed_field_changes_the_digest() {
        let events: Vec<EventRow> = (0..3).map(|seq| event_row("s", seq, "text")).collect();
        let mut changed = events.clone();
        changed[1].text.push('!');
        assert_ne!(
            event_digests(&events, 0).all,
            event_digests(&changed, 0).all
        );
        let mut moved = events.clone();
        moved[2].exit_code = Some(1);
        assert_ne!(event_digests(&events, 0).all, event_digests(&moved, 0).all);
    }
}
