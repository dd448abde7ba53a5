//! The one pass over a text that decides what to examine: an Aho-Corasick automaton (ASCII
//! case-insensitive) over the contextual triggers and every rule's keywords; and the scan
//! view rules are matched in, where JSON escapes are blanked so `\nAKIA…` has a boundary.

use std::borrow::Cow;
use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::detectors::DETECTORS;
use super::rules::RuleSet;

/// A contextual detector, by its index in [`DETECTORS`].
pub(super) type Trigger = usize;

/// What one literal of the automaton stands for.
#[derive(Debug, Default)]
struct LiteralAction {
    trigger: Option<Trigger>,
    rules: Vec<usize>,
}

/// The keyword automaton of one rule set.
#[derive(Debug)]
pub(super) struct Prefilter {
    automaton: AhoCorasick,
    actions: Vec<LiteralAction>,
}

/// What the prefilter found in one text.
#[derive(Debug, Default)]
pub(super) struct Hits {
    /// Contextual triggers, by start.
    pub triggers: Vec<(std::ops::Range<usize>, Trigger)>,
    /// Indexes of the rules one of whose keywords occurs, ascending (the rule file's order).
    pub rules: Vec<usize>,
}

impl Prefilter {
    pub(super) fn build(rules: &RuleSet) -> Prefilter {
        let mut by_literal: HashMap<String, LiteralAction> = HashMap::new();
        for (detector, literal) in DETECTORS.iter().enumerate().flat_map(|(index, detector)| {
            detector
                .triggers
                .iter()
                .map(move |literal| (index, literal))
        }) {
            by_literal
                .entry((*literal).to_string())
                .or_default()
                .trigger = Some(detector);
        }
        for (index, rule) in rules.rules.iter().enumerate() {
            for keyword in &rule.keywords {
                by_literal
                    .entry(keyword.clone())
                    .or_default()
                    .rules
                    .push(index);
            }
        }
        let (literals, actions): (Vec<String>, Vec<LiteralAction>) = by_literal.into_iter().unzip();
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&literals)
            .expect("keyword literals always build an automaton");
        Prefilter { automaton, actions }
    }

    /// Every trigger and triggered rule in `text` (allocates only when something is found).
    pub(super) fn scan(&self, text: &str) -> Hits {
        let mut hits = Hits::default();
        for found in self.automaton.find_overlapping_iter(text) {
            let action = &self.actions[found.pattern().as_usize()];
            if let Some(trigger) = action.trigger {
                hits.triggers.push((found.range(), trigger));
            }
            hits.rules.extend_from_slice(&action.rules);
        }
        hits.triggers.sort_by_key(|(range, _)| range.start);
        hits.rules.sort_unstable();
        hits.rules.dedup();
        hits
    }
}

/// The text rules are matched in: identical unless it holds JSON escapes, which are replaced
/// by blanks of the same length (`\n` → two spaces, `\u003d` → six, `\"` → ` "`), so byte
/// positions stay those of `text` and an escaped line break is a word boundary.
pub(super) fn scan_view(text: &str) -> Cow<'_, [u8]> {
    let bytes = text.as_bytes();
    if !bytes.contains(&b'\\') {
        return Cow::Borrowed(bytes);
    }
    let mut view = bytes.to_vec();
    let mut at = 0;
    while at + 1 < view.len() {
        if view[at] != b'\\' {
            at += 1;
            continue;
        }
        let escape_len = match view[at + 1] {
            b'n' | b't' | b'r' | b'b' | b'f' => 2,
            b'u' if view.len() >= at + 6
                && view[at + 2..at + 6].iter().all(u8::is_ascii_hexdigit) =>
            {
                6
            }
            b'"' | b'/' => 1,
            _ => {
                at += 2;
                continue;
            }
        };
        view[at..at + escape_len].fill(b' ');
        at += escape_len.max(2);
    }
    Cow::Owned(view)
}
