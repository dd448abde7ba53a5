//! Text shaping for responses: RFC 3339 timestamps, normalized scores, one-line event
//! summaries and search snippets centred on the best match of the query terms.

use std::sync::OnceLock;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;
use tantivy::tokenizer::TextAnalyzer;

use crate::search::filler::is_filler;

/// Longest search snippet, in characters, ellipses included (issue 3: about 300).
pub const SNIPPET_CHARS: usize = 300;
/// Longest one-line event summary in `open(turn)` (issue 3: at most 200).
pub const SUMMARY_CHARS: usize = 200;
/// Context kept before the first matched term of a snippet window.
const SNIPPET_LEAD_CHARS: usize = 60;
const ELLIPSIS: &str = "...";

/// UTC nanoseconds as the spec's timestamp format: `2026-04-29T18:42:31.125Z`.
pub fn format_timestamp(nanos: i64) -> String {
    DateTime::<Utc>::from_timestamp_nanos(nanos).to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Maps a raw BM25 score to [0, 1), strictly increasing in the raw score, so that scores keep
/// the order of the ranking and a stronger match always reads higher.
pub fn normalize_score(raw_score: f32) -> f64 {
    let raw = f64::from(raw_score).max(0.0);
    raw / (raw + 1.0)
}

/// A short piece of text and whether it leaves part of the original out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    pub text: String,
    pub truncated: bool,
}

/// The text on one line: every run of whitespace becomes one space, ends trimmed.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A one-line summary of at most `SUMMARY_CHARS` chars, cut at a word boundary when possible.
pub fn one_line_summary(text: &str) -> Excerpt {
    let line: Vec<char> = collapse_whitespace(text).chars().collect();
    if line.len() <= SUMMARY_CHARS {
        return Excerpt {
            text: line.into_iter().collect(),
            truncated: false,
        };
    }
    let budget = SUMMARY_CHARS - ELLIPSIS.len();
    let end = word_boundary_before(&line, budget);
    let mut summary: String = line[..end].iter().collect::<String>().trim_end().to_owned();
    summary.push_str(ELLIPSIS);
    Excerpt {
        text: summary,
        truncated: true,
    }
}

/// The analyzer the search index uses for event text, so snippets match what BM25 matched
/// ("failing" finds "failed").
fn search_analyzer() -> TextAnalyzer {
    static ANALYZER: OnceLock<TextAnalyzer> = OnceLock::new();
    ANALYZER
        .get_or_init(crate::search::analyzer::stemming_analyzer)
        .clone()
}

/// Every token of `text` as (byte offset, stemmed term).
fn stemmed_tokens(text: &str) -> Vec<(usize, String)> {
    let mut analyzer = search_analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut tokens = Vec::new();
    while stream.advance() {
        let token = stream.token();
        tokens.push((token.offset_from, token.text.clone()));
    }
    tokens
}

/// A snippet of at most `SNIPPET_CHARS` chars from `text`, taken around the window that holds
/// the most distinct query terms (the start of the text when no term occurs).
pub fn snippet(text: &str, query: &str) -> Excerpt {
    let collapsed = collapse_whitespace(text);
    let line: Vec<char> = collapsed.chars().collect();
    if line.len() <= SNIPPET_CHARS {
        return Excerpt {
            text: collapsed,
            truncated: false,
        };
    }
    let matches = term_matches(&collapsed, query);
    let body_budget = SNIPPET_CHARS - 2 * ELLIPSIS.len();
    let window_start = best_window_start(&matches, body_budget)
        .map(|first_match| first_match.saturating_sub(SNIPPET_LEAD_CHARS))
        .unwrap_or(0);
    let start = word_boundary_after(&line, window_start.min(line.len() - body_budget));
    let end = word_boundary_before(&line, (start + body_budget).min(line.len()));
    let mut snippet = String::new();
    if start > 0 {
        snippet.push_str(ELLIPSIS);
    }
    snippet.push_str(line[start..end].iter().collect::<String>().trim());
    if end < line.len() {
        snippet.push_str(ELLIPSIS);
    }
    Excerpt {
        text: snippet,
        truncated: true,
    }
}

/// `text` with every word whose stem is a stem of `query`, or that begins with one of
/// `prefixes` (lowercased), wrapped in `open` and `close` (the `>>>word<<<` marks of
/// relay-search's snippets).
pub fn mark_terms(text: &str, query: &str, prefixes: &[String], open: &str, close: &str) -> String {
    let query_terms: Vec<String> = stemmed_tokens(query)
        .into_iter()
        .map(|(_, term)| term)
        .collect();
    let mut analyzer = search_analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut marked = String::with_capacity(text.len());
    let mut copied = 0;
    let mut lowercased = String::new();
    while stream.advance() {
        let token = stream.token();
        let (Some(before), Some(word)) = (
            text.get(copied..token.offset_from),
            text.get(token.offset_from..token.offset_to),
        ) else {
            continue;
        };
        let by_prefix = !prefixes.is_empty() && {
            crate::search::analyzer::lowercase_into(word, &mut lowercased);
            prefixes
                .iter()
                .any(|prefix| lowercased.starts_with(prefix.as_str()))
        };
        if !by_prefix && !query_terms.contains(&token.text) {
            continue;
        }
        marked.push_str(before);
        marked.push_str(open);
        marked.push_str(word);
        marked.push_str(close);
        copied = token.offset_to;
    }
    marked.push_str(&text[copied..]);
    marked
}

/// Every token of `line` whose stem is a query term, as (char position, term index). One
/// pass over the tokens, no per-token allocation: a 1 MiB tool output costs milliseconds.
fn term_matches(line: &str, query: &str) -> Vec<(usize, usize)> {
    let mut query_terms: Vec<String> = Vec::new();
    for (_, term) in stemmed_tokens(query) {
        if !query_terms.contains(&term) {
            query_terms.push(term);
        }
    }
    // As the search leaves filler words out of a question, the window is chosen by its topic.
    if query_terms.iter().any(|term| !is_filler(term)) {
        query_terms.retain(|term| !is_filler(term));
    }
    let mut analyzer = search_analyzer();
    let mut stream = analyzer.token_stream(line);
    let mut matches = Vec::new();
    let (mut byte_cursor, mut chars_before) = (0, 0);
    while stream.advance() {
        let token = stream.token();
        let Some(term_index) = query_terms.iter().position(|term| *term == token.text) else {
            continue;
        };
        let Some(skipped) = line.get(byte_cursor..token.offset_from) else {
            continue;
        };
        chars_before += skipped.chars().count();
        byte_cursor = token.offset_from;
        matches.push((chars_before, term_index));
    }
    matches
}

/// Position of the first match of the window of `width` chars holding the most distinct terms
/// (earliest such window on ties); `None` without matches.
fn best_window_start(matches: &[(usize, usize)], width: usize) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (first_index, &(window_start, _)) in matches.iter().enumerate() {
        let mut distinct_terms: Vec<usize> = matches[first_index..]
            .iter()
            .take_while(|(position, _)| *position < window_start + width)
            .map(|&(_, term_index)| term_index)
            .collect();
        distinct_terms.sort_unstable();
        distinct_terms.dedup();
        let is_better = best.is_none_or(|(best_count, _)| distinct_terms.len() > best_count);
        if is_better {
            best = Some((distinct_terms.len(), window_start));
        }
    }
    best.map(|(_, window_start)| window_start)
}

/// `position` moved forward to the start of a word when a space is near (within 20 chars).
fn word_boundary_after(line: &[char], position: usize) -> usize {
    if position == 0 || line[position - 1] == ' ' {
        return position;
    }
    line[position..]
        .iter()
        .take(20)
        .position(|&character| character == ' ')
        .map(|offset| position + offset + 1)
        .unwrap_or(position)
}

/// `position` moved back to the end of a word when a space is near (within 20 chars).
fn word_boundary_before(line: &[char], position: usize) -> usize {
    if position >= line.len() || line[position] == ' ' {
        return position;
    }
    line[..position]
        .iter()
        .rev()
        .take(20)
        .position(|&character| character == ' ')
        .map(|offset| position - offset - 1)
        .unwrap_or(position)
}

/// A JSON string without quotes (`-` for null).
pub fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "-".to_owned(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_use_millis_and_z() {
        let nanos = 1_777_488_151_125_000_000;
        assert_eq!(format_timestamp(nanos), "2026-04-29T18:42:31.125Z");
    }

    #[test]
    fn scores_are_bounded_and_monotone() {
        let raw_scores = [0.0_f32, 0.001, 0.5, 1.0, 7.25, 7.250001, 40.0, 1e6];
        let scores: Vec<f64> = raw_scores.iter().map(|&raw| normalize_score(raw)).collect();
        assert!(scores.iter().all(|score| (0.0..=1.0).contains(score)));
        assert!(
            scores.windows(2).all(|pair| pair[0] < pair[1]),
            "{scores:?}"
        );
    }

    #[test]
    fn query_words_are_marked_by_stem() {
        assert_eq!(
            mark_terms(
                "The migrations failed; migrate again",
                "migration",
                &[],
                ">>>",
                "<<<"
            ),
            "The >>>migrations<<< failed; >>>migrate<<< again"
        );
        assert_eq!(
            mark_terms("naïve café", "café", &[], "[", "]"),
            "naïve [café]"
        );
        assert_eq!(
            mark_terms("nothing here", "parquet", &[], "[", "]"),
            "nothing here"
        );
        let prefixes = ["copperle".to_owned(), "mig".to_owned()];
        assert_eq!(
            mark_terms(
                "Copperleaf migrated, copper did not",
                "",
                &prefixes,
                "[",
                "]"
            ),
            "[Copperleaf] [migrated], copper did not"
        );
    }

    #[test]
    fn short_text_is_its_own_snippet() {
        let excerpt = snippet("cargo test\n  failed", "cargo");
        assert_eq!(excerpt.text, "cargo test failed");
        assert!(!excerpt.truncated);
    }

    #[test]
    fn match_positions_count_chars_not_bytes() {
        let line = "déjà vu, naïve café: the migration failed";
        let matches = term_matches(line, "migration failing");
        let position_of = |word: &str| line[..line.find(word).unwrap()].chars().count();
        assert_eq!(
            matches,
            vec![(position_of("migration"), 0), (position_of("failed"), 1)]
        );
    }

    #[test]
    fn snippet_is_centred_on_the_best_match_not_the_start() {
        let filler = "lorem ipsum dolor sit amet ".repeat(40);
        let text = format!("{filler} the clickhouse migration failed {filler}");
        let excerpt = snippet(&text, "ClickHouse migration");
        assert!(excerpt.truncated);
        assert!(excerpt.text.chars().count() <= SNIPPET_CHARS);
        assert!(excerpt.text.contains("clickhouse migration failed"));
        assert!(excerpt.text.starts_with(ELLIPSIS) && excerpt.text.ends_with(ELLIPSIS));
    }

    #[test]
    fn snippet_prefers_the_window_with_more_distinct_terms() {
        let filler = "x ".repeat(400);
        let text = format!("alpha {filler} alpha beta gamma {filler}");
        let excerpt = snippet(&text, "alpha beta gamma");
        assert!(
            excerpt.text.contains("alpha beta gamma"),
            "{}",
            excerpt.text
        );
    }

    #[test]
    fn snippet_without_matches_starts_at_the_beginning() {
        let text = "word ".repeat(200);
        let excerpt = snippet(&text, "absent");
        assert!(excerpt.text.starts_with("word"));
        assert!(excerpt.text.ends_with(ELLIPSIS));
        assert!(excerpt.text.chars().count() <= SNIPPET_CHARS);
    }

    #[test]
    fn snippet_matches_stems_like_the_index() {
        let filler = "lorem ipsum ".repeat(60);
        let text = format!("{filler} the build failed twice {filler}");
        let excerpt = snippet(&text, "failing builds");
        assert!(excerpt.text.contains("build failed"), "{}", excerpt.text);
    }

    #[test]
    fn snippet_handles_multibyte_text() {
        let text = format!("{} ünïcödé match {}", "é".repeat(500), "ß".repeat(500));
        let excerpt = snippet(&text, "ÜNÏCÖDÉ");
        assert!(excerpt.text.contains("ünïcödé"));
        assert!(excerpt.text.chars().count() <= SNIPPET_CHARS);
    }

    #[test]
    fn snippet_finds_cjk_words_inside_a_run() {
        let text = format!(
            "{}エラーハンドリングの共通パターンを確認しました{}",
            "前置き".repeat(150),
            "後書き".repeat(150)
        );
        let excerpt = snippet(&text, "エラーハンドリングはどうなっている？");
        assert!(
            excerpt.text.contains("エラーハンドリング"),
            "{}",
            excerpt.text
        );
    }

    #[test]
    fn snippet_windows_are_chosen_by_topic_words_not_filler() {
        let padding = "x ".repeat(400);
        let text = format!("where did we {padding} the deploy failed {padding}");
        let excerpt = snippet(&text, "where did we fix the deploy");
        assert!(excerpt.text.contains("deploy failed"), "{}", excerpt.text);
    }

    #[test]
    fn summaries_are_one_line_and_bounded() {
        let summary = one_line_summary("first line\nsecond line");
        assert_eq!(summary.text, "first line second line");
        assert!(!summary.truncated);
        let long = one_line_summary(&"word ".repeat(100));
        assert!(long.truncated);
        assert!(long.text.chars().count() <= SUMMARY_CHARS);
        assert!(long.text.ends_with("word..."));
    }
}
