//! The exact-form analyzer (issue #10): splits text into identifier runs and indexes each run
//! whole and by its parts, lowercased and never stemmed, so that `datetimes`,
//! `supports_websockets`, `getUserName`, `kebab-case`, `a.b.c` and `src/search/mod.rs` are
//! found as typed while the `en_stem` field keeps finding word variants.
//!
//! Text is read as a sequence of *runs*: maximal stretches of word characters joined by
//! connectors (`_ - . / : \ @`), trimmed of connectors at either end. A run yields its whole
//! form when it has more than one part, then each part: the alphanumeric pieces between
//! connectors, further split at camelCase humps (`getUserName` → `get user name`,
//! `HTTPServer` → `http server`). Every run today is of one kind, [`RunKind::Word`]; scripts
//! written without spaces (issue #23: CJK) are meant to become a second kind whose runs are
//! cut out by [`Runs`] and emitted as overlapping bigrams by [`parts_of`], with no change to
//! the stream or to the query side, which reads runs and parts through the same functions.

use tantivy::Index;
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};

/// Name the exact-form analyzer is registered under in every esker index.
pub const EXACT_TOKENIZER: &str = "esker_exact";

/// Longest exact token, in bytes; longer runs are still found through their parts.
pub const MAX_EXACT_TOKEN_BYTES: usize = 80;

/// Characters that join the parts of an identifier inside one run.
fn is_connector(character: char) -> bool {
    matches!(character, '_' | '-' | '.' | '/' | ':' | '\\' | '@')
}

/// Characters that make up the parts of a run.
fn is_word_character(character: char) -> bool {
    character.is_alphanumeric()
}

/// Registers the analyzers an esker index needs beyond tantivy's defaults; called on every
/// `Index` opened or created, because tantivy keeps custom tokenizers in memory only.
pub fn register_analyzers(index: &Index) {
    index.tokenizers().register(
        EXACT_TOKENIZER,
        TextAnalyzer::from(ExactTokenizer::default()),
    );
}

/// What a run is made of; decides how it is cut into parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// Letters and digits of space-separated scripts, with connectors.
    Word,
}

/// One run of `text`: its byte offset and its (connector-trimmed) slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run<'a> {
    pub offset: usize,
    pub text: &'a str,
    pub kind: RunKind,
}

/// The runs of a text, left to right.
pub struct Runs<'a> {
    text: &'a str,
    cursor: usize,
}

/// The runs of `text`.
pub fn runs(text: &str) -> Runs<'_> {
    Runs { text, cursor: 0 }
}

impl<'a> Iterator for Runs<'a> {
    type Item = Run<'a>;

    fn next(&mut self) -> Option<Run<'a>> {
        let rest = self.text.get(self.cursor..)?;
        let (start_in_rest, _) = rest
            .char_indices()
            .find(|(_, character)| is_word_character(*character))?;
        let start = self.cursor + start_in_rest;
        let mut end_of_last_word_character = start;
        let mut scan_end = self.text.len();
        for (offset, character) in self.text[start..].char_indices() {
            if is_word_character(character) {
                end_of_last_word_character = start + offset + character.len_utf8();
            } else if !is_connector(character) {
                scan_end = start + offset;
                break;
            }
        }
        self.cursor = scan_end.max(end_of_last_word_character);
        Some(Run {
            offset: start,
            text: &self.text[start..end_of_last_word_character],
            kind: RunKind::Word,
        })
    }
}

/// The parts of a run as `(byte offset within the run, part)`.
pub fn parts_of<'a>(run: &Run<'a>) -> Vec<(usize, &'a str)> {
    let mut parts = Vec::new();
    for_each_part(run, |offset, part| parts.push((offset, part)));
    parts
}

/// Calls `emit` with each part of `run` (byte offset within the run, part), left to right.
fn for_each_part<'a>(run: &Run<'a>, emit: impl FnMut(usize, &'a str)) {
    match run.kind {
        RunKind::Word => word_parts(run.text, emit),
    }
}

/// Alphanumeric pieces between connectors, split at camelCase humps.
fn word_parts<'a>(text: &'a str, mut emit: impl FnMut(usize, &'a str)) {
    let mut part_start: Option<usize> = None;
    let mut previous: Option<char> = None;
    let mut characters = text.char_indices().peekable();
    while let Some((offset, character)) = characters.next() {
        let next = characters.peek().map(|&(_, next)| next);
        if !is_word_character(character) {
            if let Some(start) = part_start.take() {
                emit(start, &text[start..offset]);
            }
        } else if part_start.is_none() {
            part_start = Some(offset);
        } else if previous.is_some_and(|previous| is_camel_hump(previous, character, next))
            && let Some(start) = part_start.replace(offset)
        {
            emit(start, &text[start..offset]);
        }
        previous = Some(character);
    }
    if let Some(start) = part_start {
        emit(start, &text[start..]);
    }
}

/// Whether a new part starts at `current`: `getUser` (lower → upper) and `HTTPServer` (the
/// last capital of a run of capitals that starts a word). Digits never split (`sha256`).
fn is_camel_hump(previous: char, current: char, next: Option<char>) -> bool {
    if !current.is_uppercase() {
        return false;
    }
    previous.is_lowercase()
        || (previous.is_uppercase() && next.is_some_and(|next| next.is_lowercase()))
}

/// `text` lowercased into `out` (cleared first).
pub fn lowercase_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
    } else {
        out.extend(text.chars().flat_map(char::to_lowercase));
    }
}

/// The exact forms of one run, lowercased: its whole form when it has several parts, and the
/// parts. `None` for text without a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactForms {
    /// The run as one term (`supports_websockets`, `getusername`); set only when it differs
    /// from its single part.
    pub whole: Option<String>,
    pub parts: Vec<String>,
}

/// The exact forms of every run of `text`, in order.
pub fn exact_forms(text: &str) -> Vec<ExactForms> {
    runs(text).map(|run| forms_of(&run)).collect()
}

/// The exact forms of one run.
pub fn forms_of(run: &Run<'_>) -> ExactForms {
    let parts: Vec<String> = parts_of(run)
        .into_iter()
        .map(|(_, part)| lowercased(part))
        .collect();
    let whole = (parts.len() > 1).then(|| lowercased(run.text));
    ExactForms { whole, parts }
}

fn lowercased(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    lowercase_into(text, &mut out);
    out
}

/// The tantivy tokenizer of the `exact` field.
#[derive(Clone, Default)]
pub struct ExactTokenizer {
    token: Token,
}

/// Tokens of one text: for each run, the whole form (when it has several parts) then its parts.
pub struct ExactTokenStream<'a> {
    runs: Runs<'a>,
    text: &'a str,
    /// Byte ranges (within `text`) of the current run's tokens, emitted from `next_pending`.
    pending: Vec<(usize, usize)>,
    next_pending: usize,
    token: &'a mut Token,
}

impl Tokenizer for ExactTokenizer {
    type TokenStream<'a> = ExactTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> ExactTokenStream<'a> {
        self.token.reset();
        ExactTokenStream {
            runs: runs(text),
            text,
            pending: Vec::new(),
            next_pending: 0,
            token: &mut self.token,
        }
    }
}

impl ExactTokenStream<'_> {
    /// Queues the tokens of the next run; false when no run is left.
    fn queue_next_run(&mut self) -> bool {
        let Some(run) = self.runs.next() else {
            return false;
        };
        self.pending.clear();
        self.next_pending = 0;
        self.pending.push((run.offset, run.offset + run.text.len()));
        let pending = &mut self.pending;
        for_each_part(&run, |offset, part| {
            let from = run.offset + offset;
            pending.push((from, from + part.len()));
        });
        let single_part = self.pending.len() == 2;
        if single_part {
            self.next_pending = 1;
        }
        true
    }
}

impl TokenStream for ExactTokenStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            while let Some(&(from, to)) = self.pending.get(self.next_pending) {
                self.next_pending += 1;
                if to - from > MAX_EXACT_TOKEN_BYTES {
                    continue;
                }
                self.token.position = self.token.position.wrapping_add(1);
                self.token.offset_from = from;
                self.token.offset_to = to;
                lowercase_into(&self.text[from..to], &mut self.token.text);
                return true;
            }
            if !self.queue_next_run() {
                return false;
            }
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        let mut tokenizer = ExactTokenizer::default();
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn plain_words_are_lowercased_and_never_stemmed() {
        assert_eq!(
            tokens("Parsing datetimes, coordinating!"),
            ["parsing", "datetimes", "coordinating"]
        );
    }

    #[test]
    fn identifiers_are_indexed_whole_and_by_parts() {
        assert_eq!(
            tokens("supports_websockets"),
            ["supports_websockets", "supports", "websockets"]
        );
        assert_eq!(tokens("kebab-case"), ["kebab-case", "kebab", "case"]);
        assert_eq!(
            tokens("getUserName"),
            ["getusername", "get", "user", "name"]
        );
        assert_eq!(tokens("HTTPServer2"), ["httpserver2", "http", "server2"]);
        assert_eq!(
            tokens("serde_json.to_string"),
            ["serde_json.to_string", "serde", "json", "to", "string"]
        );
        assert_eq!(
            tokens("see /work/src/mod.rs."),
            ["see", "work/src/mod.rs", "work", "src", "mod", "rs"]
        );
    }

    #[test]
    fn connectors_at_the_ends_are_trimmed_and_digits_do_not_split() {
        assert_eq!(
            tokens("--rebuild ... sha256: v2"),
            ["rebuild", "sha256", "v2"]
        );
        assert_eq!(tokens("__init__"), ["init"]);
    }

    #[test]
    fn non_ascii_text_is_lowercased_and_hostile_text_is_survived() {
        assert_eq!(tokens("Ärger ÜBER straße"), ["ärger", "über", "straße"]);
        assert!(tokens("").is_empty());
        assert!(tokens("--- ... /// ::").is_empty());
        let long = "a".repeat(MAX_EXACT_TOKEN_BYTES + 1);
        assert!(tokens(&long).is_empty(), "over-long tokens are dropped");
        assert_eq!(tokens(&format!("{long}_b")), ["b"], "its parts remain");
    }

    #[test]
    fn exact_forms_match_the_tokens() {
        assert_eq!(
            exact_forms("getUserName, datetimes"),
            [
                ExactForms {
                    whole: Some("getusername".into()),
                    parts: vec!["get".into(), "user".into(), "name".into()],
                },
                ExactForms {
                    whole: None,
                    parts: vec!["datetimes".into()],
                },
            ]
        );
    }
}
