//! Reading a block as the agent gets it: one line per recalled item,
//! `- DATE · HARNESS · PROJECT · TEXT · ID` (`src/cli/recall/block.rs`).

/// The separator of a line's fields.
const SEPARATOR: &str = " · ";

/// One recalled line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The id to cite (`event:...`; a memory entry's id).
    pub id: String,
    /// The one-line text as shown (a search snippet, possibly cut).
    pub text: String,
    /// The whole line, for the per-prompt report.
    pub raw: String,
}

/// The item lines of `block`, in order.
pub fn lines(block: &str) -> Vec<Line> {
    block
        .lines()
        .filter_map(|line| line.strip_prefix("- "))
        .filter_map(|body| {
            let (fields, id) = body.rsplit_once(SEPARATOR)?;
            // DATE · HARNESS · PROJECT · TEXT; the project is left out when unknown.
            let parts: Vec<&str> = fields.splitn(4, SEPARATOR).collect();
            let text = match parts.len() {
                4 => parts[3],
                3 => parts[2],
                _ => "",
            };
            Some(Line {
                id: id.trim().to_owned(),
                text: text.to_owned(),
                raw: format!("- {body}"),
            })
        })
        .collect()
}

/// The pieces of a shown text that must occur, in order, in the cited event's text: the
/// snippet's `...` (cut by the search snippet) and the block's `…` (cut to one line) removed.
pub fn quoted_pieces(text: &str) -> Vec<String> {
    let trimmed = text.trim().trim_end_matches('…');
    trimmed
        .split("...")
        .map(|piece| piece.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|piece| !piece.is_empty())
        .collect()
}

/// Whether every piece of `shown` occurs in `source` (whitespace collapsed), in order.
pub fn quotes(source: &str, shown: &str) -> bool {
    let source = source.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut from = 0;
    for piece in quoted_pieces(shown) {
        match source[from..].find(&piece) {
            Some(at) => from += at + piece.len(),
            None => return false,
        }
    }
    true
}

/// Estimated tokens of a block, as recall counts them (characters / 4, rounded up).
pub fn tokens(block: &str) -> usize {
    block.chars().count().div_ceil(4)
}
