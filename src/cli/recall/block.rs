//! The context block `esker recall` prints: the recalled items in their order (memory entries
//! first, then the current project's, then the rest), one line each with its date, harness,
//! project, a one-line text and the id to cite, cut to a token budget (estimated as
//! characters / 4, rounded up). Pure: items in, text out.

use crate::cli::style;

/// The block's first line.
pub const HEADER: &str =
    "Relevant past agent sessions (esker recall; cite an id, `esker show <id>` opens it):\n";

/// Most lines a block holds, whatever the budget.
pub const MAX_ITEMS: usize = 8;

/// Widest one-line text of an item, in characters.
const TEXT_WIDTH: usize = 240;

/// What an item is; memory entries come first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A memory entry (a decision, constraint, note...).
    Memory,
    /// An event found by the prompt, or a recent session of the project.
    History,
}

/// One recalled line before it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Recalled {
    pub kind: Kind,
    /// `YYYY-MM-DD`, when known.
    pub date: Option<String>,
    /// The harness (`Claude Code`, `Codex`...), or `memory/<type>` for a memory entry.
    pub harness: String,
    pub project: Option<String>,
    pub text: String,
    /// The id to cite (`event:...`, `session:...`, a memory entry's id).
    pub id: String,
    /// Whether it belongs to the project of the working directory.
    pub in_project: bool,
}

/// Estimated tokens of `text`: characters / 4, rounded up.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Sorts `items` into block order, keeping the given (relevance) order within each class:
/// memory entries first, and within each kind the current project's items first.
pub fn order(items: &mut [Recalled]) {
    items.sort_by_key(|item| (item.kind, !item.in_project));
}

/// The block for `items` (already in order) within `budget_tokens`: the header and as many
/// lines as fit, at most [`MAX_ITEMS`]; empty when no line fits or there is none.
pub fn render(items: &[Recalled], budget_tokens: usize) -> String {
    let mut block = HEADER.to_owned();
    let mut lines = 0;
    for item in items {
        if lines == MAX_ITEMS {
            break;
        }
        let line = line(item);
        if estimate_tokens(&format!("{block}{line}")) > budget_tokens {
            continue;
        }
        block.push_str(&line);
        lines += 1;
    }
    if lines == 0 { String::new() } else { block }
}

/// `- 2026-03-14 · Codex · webapp · the text · event:...`.
pub fn line(item: &Recalled) -> String {
    let mut parts = vec![
        item.date.clone().unwrap_or_else(|| "----------".to_owned()),
        item.harness.clone(),
    ];
    if let Some(project) = &item.project {
        parts.push(project.clone());
    }
    parts.push(style::one_line(&item.text, TEXT_WIDTH));
    parts.push(item.id.clone());
    format!("- {}\n", parts.join(" · "))
}

/// The `YYYY-MM-DD` of an RFC 3339 time.
pub fn date_of(time: &str) -> Option<String> {
    style::parse_time(time).map(|time| time.format("%Y-%m-%d").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(kind: Kind, in_project: bool, id: &str) -> Recalled {
        Recalled {
            kind,
            date: Some("2026-03-14".to_owned()),
            harness: "Codex".to_owned(),
            project: Some("webapp".to_owned()),
            text: format!("text of {id}"),
            id: id.to_owned(),
            in_project,
        }
    }

    #[test]
    fn memory_then_the_project_then_the_rest_each_in_relevance_order() {
        let mut items = vec![
            item(Kind::History, false, "event:1"),
            item(Kind::History, true, "event:2"),
            item(Kind::Memory, false, "m1"),
            item(Kind::History, true, "event:3"),
            item(Kind::Memory, true, "m2"),
        ];
        order(&mut items);
        let ids: Vec<&str> = items.iter().map(|item| item.id.as_str()).collect();
        assert_eq!(ids, ["m2", "m1", "event:2", "event:3", "event:1"]);
    }

    #[test]
    fn a_line_holds_date_harness_project_text_and_id() {
        let line = line(&item(Kind::History, true, "event:abc"));
        assert_eq!(
            line,
            "- 2026-03-14 · Codex · webapp · text of event:abc · event:abc\n"
        );
    }

    #[test]
    fn the_block_stays_within_the_budget_and_keeps_the_order() {
        let items: Vec<Recalled> = (0..20)
            .map(|index| item(Kind::History, true, &format!("event:{index}")))
            .collect();
        for budget in [0, 10, 40, 60, 100, 1500] {
            let block = render(&items, budget);
            assert!(estimate_tokens(&block) <= budget, "{budget}: {block}");
            let ids: Vec<&str> = block
                .lines()
                .skip(1)
                .map(|line| line.rsplit(' ').next().unwrap())
                .collect();
            let expected: Vec<String> = (0..ids.len()).map(|i| format!("event:{i}")).collect();
            assert_eq!(ids, expected, "{budget}");
        }
        assert_eq!(render(&items, 0), "");
        assert_eq!(render(&items, 1500).lines().count(), MAX_ITEMS + 1);
    }

    #[test]
    fn nothing_to_say_is_an_empty_block() {
        assert_eq!(render(&[], 1500), "");
    }

    #[test]
    fn a_long_text_is_cut_to_one_line() {
        let mut long = item(Kind::History, false, "event:x");
        long.text = "word\nnext ".repeat(200);
        let line = line(&long);
        assert_eq!(line.lines().count(), 1);
        assert!(line.chars().count() < TEXT_WIDTH + 80, "{line}");
    }

    #[test]
    fn tokens_are_characters_over_four_rounded_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("ééé"), 1);
    }
}
