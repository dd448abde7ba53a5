//! Filler words of questions (issue #23): the English function words, question words,
//! pronouns, auxiliaries and the phrasing of questions about past work ("where did we...",
//! "can you remind me...", "what did we decide about...") that carry no topic. The query side
//! leaves them out of a question that has any other word, so they never decide the ranking;
//! a query made only of them is searched as typed. Identifiers are never filler
//! (`do_thing`, `the-app`), nor are quoted phrases.

/// Filler words, lowercase, sorted (binary search).
const ENGLISH_FILLER: &[&str] = &[
    "a",
    "about",
    "again",
    "agree",
    "agreed",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "as",
    "ask",
    "asked",
    "at",
    "be",
    "been",
    "being",
    "but",
    "by",
    "can",
    "could",
    "decide",
    "decided",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "else",
    "ever",
    "find",
    "for",
    "from",
    "get",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "hello",
    "her",
    "hey",
    "hi",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "know",
    "let",
    "like",
    "look",
    "looked",
    "me",
    "mean",
    "my",
    "need",
    "of",
    "on",
    "once",
    "one",
    "or",
    "our",
    "ours",
    "please",
    "recall",
    "remember",
    "remind",
    "said",
    "say",
    "she",
    "should",
    "so",
    "some",
    "something",
    "such",
    "tell",
    "than",
    "thanks",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "think",
    "this",
    "those",
    "to",
    "told",
    "up",
    "us",
    "want",
    "was",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
];

/// Whether `word` (one lowercase word, no connectors) is a filler word.
pub fn is_filler(word: &str) -> bool {
    ENGLISH_FILLER.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_lowercase_and_without_duplicates() {
        assert!(ENGLISH_FILLER.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(
            ENGLISH_FILLER
                .iter()
                .all(|word| word.chars().all(|c| c.is_ascii_lowercase()))
        );
    }

    #[test]
    fn question_words_are_filler_and_topic_words_are_not() {
        for word in ["where", "did", "we", "the", "remind", "decide", "about"] {
            assert!(is_filler(word), "{word}");
        }
        for word in ["deploy", "failed", "403", "service", "account", "spinner"] {
            assert!(!is_filler(word), "{word}");
        }
    }
}
