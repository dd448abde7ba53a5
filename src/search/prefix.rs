//! Prefix expansion (FTS5's `migrat*`, issue #15): the indexed words of a field that begin with
//! a prefix, bounded so a one-letter prefix cannot turn into a query over the whole dictionary.

use std::collections::HashMap;

use tantivy::schema::Field;
use tantivy::{Searcher, TantivyError};

use super::SearchError;

/// Most distinct words one prefix stands for: the most frequent of those read.
pub const MAX_PREFIX_EXPANSIONS: usize = 64;

/// Most dictionary entries read per index segment for one prefix (in dictionary order).
pub const MAX_PREFIX_SCAN: usize = 10_000;

/// The words of `field` beginning with `prefix` (already lowercased as the field's analyzer
/// lowercases): at most [`MAX_PREFIX_EXPANSIONS`], the most frequent (by document count summed
/// over segments, ties in dictionary order) of the first [`MAX_PREFIX_SCAN`] per segment.
pub fn expand_prefix(
    searcher: &Searcher,
    field: Field,
    prefix: &str,
) -> Result<Vec<String>, SearchError> {
    let mut frequencies: HashMap<String, u64> = HashMap::new();
    for segment in searcher.segment_readers() {
        let index = segment.inverted_index(field)?;
        let mut stream = index
            .terms()
            .range()
            .ge(prefix.as_bytes())
            .into_stream()
            .map_err(TantivyError::from)?;
        let mut read = 0;
        while read < MAX_PREFIX_SCAN && stream.advance() {
            let key = stream.key();
            if !key.starts_with(prefix.as_bytes()) {
                break;
            }
            read += 1;
            if let Ok(word) = std::str::from_utf8(key) {
                *frequencies.entry(word.to_owned()).or_default() +=
                    u64::from(stream.value().doc_freq);
            }
        }
    }
    let mut words: Vec<(String, u64)> = frequencies.into_iter().collect();
    words.sort_by(|left, right| right.1.cmp(&left.1).then_with(|| left.0.cmp(&right.0)));
    words.truncate(MAX_PREFIX_EXPANSIONS);
    Ok(words.into_iter().map(|(word, _)| word).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::{event, index_of};

    #[test]
    fn a_prefix_expands_to_the_words_beginning_with_it_most_frequent_first() {
        let (_dir, index) = index_of(&[
            event("event:a", "session:s", "migration migrate"),
            event("event:b", "session:s", "migrations migration emigrate"),
            event("event:c", "session:s", "migration"),
        ]);
        let searcher = index.reader.searcher();
        let exact = index.fields.exact.expect("exact forms");
        assert_eq!(
            expand_prefix(&searcher, exact, "migrat").unwrap(),
            ["migration", "migrate", "migrations"]
        );
        assert!(expand_prefix(&searcher, exact, "zzz").unwrap().is_empty());
    }

    #[test]
    fn a_short_prefix_is_capped() {
        let words: Vec<String> = (0..MAX_PREFIX_EXPANSIONS + 20)
            .map(|n| format!("a{n:03}"))
            .collect();
        let (_dir, index) = index_of(&[event("event:a", "session:s", &words.join(" "))]);
        let searcher = index.reader.searcher();
        let exact = index.fields.exact.expect("exact forms");
        let expanded = expand_prefix(&searcher, exact, "a").unwrap();
        assert_eq!(expanded.len(), MAX_PREFIX_EXPANSIONS);
        assert_eq!(expanded[0], "a000");
    }
}
