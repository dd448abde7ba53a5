//! The analyzers of esker's index (issues #10 and #23): both cut text into *runs* and each run
//! into tokens, so the index and the query side (which reads runs and parts through the same
//! functions) always agree.
//!
//! A run is either a *word* run — a maximal stretch of letters and digits of a script written
//! with spaces, joined by connectors (`_ - . / : \ @`) and trimmed of connectors at either end —
//! or a *bigram* run: a maximal stretch of a script written without spaces (Chinese, Japanese,
//! Korean, Thai, Lao, Khmer, Myanmar; [`super::script`]). Runs end where the script changes, so
//! `APIのエラー` is the word run `API` then the bigram run `のエラー`.
//!
//! - The exact-form analyzer (`exact` field) yields, for a word run, its whole form when it has
//!   more than one part, then each part: the alphanumeric pieces between connectors, further
//!   split at camelCase humps (`getUserName` → `getusername get user name`), lowercased and
//!   never stemmed; for a bigram run, its overlapping bigrams of characters (grapheme clusters)
//!   as Lucene's CJKAnalyzer does (`エラー処理` → `エラ ラー ー処 処理`; a lone character stays a
//!   unigram).
//! - The stemming analyzer (`text` field) yields the alphanumeric pieces of word runs (what
//!   tantivy's `en_stem` yields, camelCase kept whole) and the same bigrams, then drops tokens
//!   over 40 bytes and stems with the English Snowball stemmer (bigrams pass through unchanged).
//!   Consecutive bigrams take consecutive positions, so a CJK word is a phrase of its bigrams.

use tantivy::Index;
use tantivy::tokenizer::{RemoveLongFilter, TextAnalyzer, Token, TokenStream, Tokenizer};
use unicode_segmentation::UnicodeSegmentation;

use super::script::{CharClass, class_of, fold_width};
use super::stem_cache::CachedEnglishStemmer;

/// Name the exact-form analyzer is registered under in every esker index.
pub const EXACT_TOKENIZER: &str = "esker_exact";

/// Name the stemming analyzer of the event text is registered under.
pub const STEM_TOKENIZER: &str = "esker_stem";

/// Longest exact token, in bytes; longer runs are still found through their parts.
pub const MAX_EXACT_TOKEN_BYTES: usize = 80;

/// Longest stemmed token, in bytes (as tantivy's `en_stem`).
const MAX_STEM_TOKEN_BYTES: usize = 40;

/// Characters that join the parts of an identifier inside one run.
#[inline]
fn is_connector(character: char) -> bool {
    matches!(character, '_' | '-' | '.' | '/' | ':' | '\\' | '@')
}

/// Characters that make up the parts of a word run.
#[inline]
fn is_word_character(character: char) -> bool {
    class_of(character) == CharClass::Word
}

/// Registers the analyzers an esker index needs beyond tantivy's defaults; called on every
/// `Index` opened or created, because tantivy keeps custom tokenizers in memory only.
pub fn register_analyzers(index: &Index) {
    index.tokenizers().register(
        EXACT_TOKENIZER,
        TextAnalyzer::from(RunTokenizer::new(Cut::Exact)),
    );
    index
        .tokenizers()
        .register(STEM_TOKENIZER, stemming_analyzer());
}

/// The analyzer of the `text` field (also what snippets match query terms with).
pub fn stemming_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(RunTokenizer::new(Cut::Stem))
        .filter(RemoveLongFilter::limit(MAX_STEM_TOKEN_BYTES))
        .filter(CachedEnglishStemmer)
        .build()
}

/// What a run is made of; decides how it is cut into parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// Letters and digits of space-separated scripts, with connectors.
    Word,
    /// Characters of a script written without spaces, cut into overlapping bigrams.
    Bigram,
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

impl<'a> Runs<'a> {
    /// Where the next run starts, and its kind. ASCII is classified byte by byte: it is
    /// most of the text an indexing pass reads.
    fn next_run_start(&self) -> Option<(usize, RunKind)> {
        let bytes = self.text.as_bytes();
        let mut position = self.cursor;
        loop {
            let byte = *bytes.get(position)?;
            if byte.is_ascii() {
                if byte.is_ascii_alphanumeric() {
                    return Some((position, RunKind::Word));
                }
                position += 1;
                continue;
            }
            let character = self.text[position..].chars().next()?;
            match class_of(character) {
                CharClass::Word => return Some((position, RunKind::Word)),
                CharClass::Bigram => return Some((position, RunKind::Bigram)),
                CharClass::Other => position += character.len_utf8(),
            }
        }
    }

    /// The end of the word run starting at `start` and where scanning stopped.
    fn word_run_end(&self, start: usize) -> (usize, usize) {
        let bytes = self.text.as_bytes();
        let mut end_of_last_word_character = start;
        let mut position = start;
        while let Some(&byte) = bytes.get(position) {
            let (character, width) = if byte.is_ascii() {
                (char::from(byte), 1)
            } else {
                let character = self.text[position..].chars().next().unwrap_or_default();
                (character, character.len_utf8())
            };
            if is_word_character(character) {
                end_of_last_word_character = position + width;
            } else if !is_connector(character) {
                return (end_of_last_word_character, position);
            }
            position += width;
        }
        (end_of_last_word_character, self.text.len())
    }

    /// The end of the bigram run starting at `start`.
    fn bigram_run_end(&self, start: usize) -> usize {
        self.text[start..]
            .char_indices()
            .find(|(_, character)| class_of(*character) != CharClass::Bigram)
            .map_or(self.text.len(), |(offset, _)| start + offset)
    }
}

impl<'a> Iterator for Runs<'a> {
    type Item = Run<'a>;

    fn next(&mut self) -> Option<Run<'a>> {
        let (start, kind) = self.next_run_start()?;
        let end = match kind {
            RunKind::Word => {
                let (end, scan_end) = self.word_run_end(start);
                self.cursor = scan_end.max(end);
                end
            }
            RunKind::Bigram => {
                let end = self.bigram_run_end(start);
                self.cursor = end;
                end
            }
        };
        Some(Run {
            offset: start,
            text: &self.text[start..end],
            kind,
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
        RunKind::Word => word_parts(run.text, true, emit),
        RunKind::Bigram => bigrams(run.text, emit),
    }
}

/// Calls `emit` with each token the stemming analyzer takes from `run`: the pieces between
/// connectors of a word run (camelCase kept whole, as tantivy's simple tokenizer does), the
/// bigrams of a bigram run.
fn for_each_stem_piece<'a>(run: &Run<'a>, emit: impl FnMut(usize, &'a str)) {
    match run.kind {
        RunKind::Word => word_parts(run.text, false, emit),
        RunKind::Bigram => bigrams(run.text, emit),
    }
}

/// Alphanumeric pieces between connectors, split at camelCase humps when `split_camel_case`.
fn word_parts<'a>(text: &'a str, split_camel_case: bool, mut emit: impl FnMut(usize, &'a str)) {
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
        } else if split_camel_case
            && previous.is_some_and(|previous| is_camel_hump(previous, character, next))
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

/// Overlapping pairs of grapheme clusters (a base character with its combining marks); a run of
/// one cluster is emitted whole.
fn bigrams<'a>(text: &'a str, mut emit: impl FnMut(usize, &'a str)) {
    let mut clusters = text.grapheme_indices(true).map(|(offset, _)| offset);
    let Some(mut first) = clusters.next() else {
        return;
    };
    let mut second = match clusters.next() {
        Some(second) => second,
        None => return emit(first, text),
    };
    loop {
        let next = clusters.next();
        let end = next.unwrap_or(text.len());
        emit(first, &text[first..end]);
        let Some(next) = next else {
            return;
        };
        (first, second) = (second, next);
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

/// `text` lowercased, with fullwidth ASCII folded to ASCII, into `out` (cleared first).
pub fn lowercase_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
    } else {
        out.extend(text.chars().map(fold_width).flat_map(char::to_lowercase));
    }
}

/// The exact forms of one run, lowercased: its whole form when it is a word run of several
/// parts, and the parts. `None` for text without a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactForms {
    /// The run as one term (`supports_websockets`, `getusername`); set only for word runs whose
    /// form differs from their single part.
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
    let whole = (run.kind == RunKind::Word && parts.len() > 1).then(|| lowercased(run.text));
    ExactForms { whole, parts }
}

fn lowercased(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    lowercase_into(text, &mut out);
    out
}

/// Which tokens a [`RunTokenizer`] takes from each run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// Whole word runs of several parts, then the parts (the `exact` field).
    Exact,
    /// The pieces the stemmer reads (the `text` field).
    Stem,
}

/// A tantivy tokenizer over runs; tokens are lowercased with fullwidth ASCII folded.
#[derive(Clone)]
pub struct RunTokenizer {
    cut: Cut,
    token: Token,
}

impl RunTokenizer {
    fn new(cut: Cut) -> RunTokenizer {
        RunTokenizer {
            cut,
            token: Token::default(),
        }
    }

    /// The tokenizer of the `exact` field.
    pub fn exact() -> RunTokenizer {
        RunTokenizer::new(Cut::Exact)
    }
}

/// Tokens of one text, run by run.
pub struct RunTokenStream<'a> {
    cut: Cut,
    runs: Runs<'a>,
    text: &'a str,
    /// Byte ranges (within `text`) of the current run's tokens, emitted from `next_pending`.
    pending: Vec<(usize, usize)>,
    next_pending: usize,
    token: &'a mut Token,
}

impl Tokenizer for RunTokenizer {
    type TokenStream<'a> = RunTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> RunTokenStream<'a> {
        self.token.reset();
        RunTokenStream {
            cut: self.cut,
            runs: runs(text),
            text,
            pending: Vec::new(),
            next_pending: 0,
            token: &mut self.token,
        }
    }
}

impl RunTokenStream<'_> {
    /// Queues the tokens of the next run; false when no run is left.
    fn queue_next_run(&mut self) -> bool {
        let Some(run) = self.runs.next() else {
            return false;
        };
        self.pending.clear();
        self.next_pending = 0;
        let pending = &mut self.pending;
        let mut push = |offset: usize, part: &str| {
            let from = run.offset + offset;
            pending.push((from, from + part.len()));
        };
        match self.cut {
            Cut::Exact => {
                if run.kind == RunKind::Word {
                    push(0, run.text);
                }
                for_each_part(&run, &mut push);
                let single_part = run.kind == RunKind::Word && self.pending.len() == 2;
                if single_part {
                    self.next_pending = 1;
                }
            }
            Cut::Stem => for_each_stem_piece(&run, push),
        }
        true
    }
}

impl TokenStream for RunTokenStream<'_> {
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
        let mut tokenizer = RunTokenizer::exact();
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    /// The stemming analyzer's tokens with their positions.
    fn stems(text: &str) -> Vec<(String, usize)> {
        let mut analyzer = stemming_analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push((stream.token().text.clone(), stream.token().position));
        }
        out
    }

    fn stem_texts(text: &str) -> Vec<String> {
        stems(text).into_iter().map(|(stem, _)| stem).collect()
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

    #[test]
    fn cjk_runs_become_overlapping_bigrams_split_from_latin_words() {
        assert_eq!(
            tokens("他のAPIのエラー処理"),
            ["他の", "api", "のエ", "エラ", "ラー", "ー処", "処理"]
        );
        assert_eq!(
            tokens("已改成全局方案了。"),
            ["已改", "改成", "成全", "全局", "局方", "方案", "案了"]
        );
        assert_eq!(
            tokens("我 是"),
            ["我", "是"],
            "a lone character is a unigram"
        );
        assert_eq!(tokens("검색 엔진"), ["검색", "엔진"]);
        assert_eq!(
            tokens("ＡＰＩ　キー"),
            ["api", "キー"],
            "fullwidth ASCII folds"
        );
        assert_eq!(
            exact_forms("エラー"),
            [ExactForms {
                whole: None,
                parts: vec!["エラ".into(), "ラー".into()],
            }]
        );
    }

    #[test]
    fn thai_is_cut_into_bigrams_of_syllable_clusters_not_one_token_per_line() {
        let thai = tokens("ค้นหาข้อมูล");
        assert!(thai.len() > 3, "{thai:?}");
        assert_eq!(thai[0], "ค้น", "a tone mark stays with its consonant");
        assert!(
            thai.iter().all(|token| token.chars().count() <= 3),
            "{thai:?}"
        );
    }

    #[test]
    fn the_stemming_analyzer_stems_latin_words_and_keeps_bigrams_in_positions() {
        assert_eq!(
            stem_texts("Parsing datetimes getUserName supports_websockets"),
            ["pars", "datetim", "getusernam", "support", "websocket"]
        );
        assert_eq!(
            stems("エラー処理 errors"),
            [
                ("エラ".to_owned(), 0),
                ("ラー".to_owned(), 1),
                ("ー処".to_owned(), 2),
                ("処理".to_owned(), 3),
                ("error".to_owned(), 4),
            ]
        );
        let long = "x".repeat(MAX_STEM_TOKEN_BYTES + 1);
        assert!(stem_texts(&long).is_empty(), "over-long stems are dropped");
    }
}
