//! Boolean combinations of relevance queries (all of, any of, one without another) for query
//! languages with explicit operators, such as relay-search's FTS5 syntax: each leaf is query
//! text matched and scored exactly as `search_sessions` matches and scores it
//! ([`RelevanceBuilder::build`]), and the operators only decide which documents match; a
//! matching document's score is the sum of its matching leaves' scores. FTS5's NEAR groups,
//! prefixes (`migrat*`, `"schema dri"*`) and `^` are [`MatchExpression::Near`] leaves: a lone
//! word prefix matches the exact (unstemmed) forms beginning with it ([`super::prefix`]), every
//! other one is checked by token positions in the stemmed text ([`super::positional`]).

use tantivy::Term;
use tantivy::query::{BooleanQuery, ConstScoreQuery, EmptyQuery, Occur, Query};
use tantivy::schema::Field;

use super::SearchError;
use super::analyzer::{forms_of, lowercase_into, runs};
use super::positional::{PositionalQuery, SlotPhrase};
use super::prefix::expand_prefix;
use super::query::{RelevanceBuilder, exact_term_query};

/// What a document must contain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchExpression {
    /// Query text as `search_sessions` reads it: any of its words (stems or exact forms), and
    /// every `"quoted phrase"` in it.
    Text(String),
    /// Every one of these.
    All(Vec<MatchExpression>),
    /// At least one of these.
    Any(Vec<MatchExpression>),
    /// `matching`, unless it also matches `excluded`.
    Without {
        matching: Box<MatchExpression>,
        excluded: Box<MatchExpression>,
    },
    /// Every phrase, the phrases within `max_gap` tokens of each other in any order (FTS5's
    /// `NEAR`, [`super::positional::near_match`]); a group of one phrase is that phrase alone
    /// (how `word*`, `"phrase"*` and `^word` are read).
    Near {
        phrases: Vec<NearPhrase>,
        max_gap: u32,
    },
    /// No event (an FTS5 column filter that leaves out the only column).
    Nothing,
}

/// One phrase of a [`MatchExpression::Near`] group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearPhrase {
    /// The phrase, matched by its stems at consecutive positions.
    pub text: String,
    /// Its last token is a prefix (FTS5 `*`): any indexed word beginning with it, at most
    /// [`super::prefix::MAX_PREFIX_EXPANSIONS`] of them.
    pub prefix: bool,
    /// Only at the start of the event's text (FTS5 `^`).
    pub at_start: bool,
}

impl NearPhrase {
    /// A phrase without prefix or anchor.
    pub fn plain(text: &str) -> NearPhrase {
        NearPhrase {
            text: text.to_owned(),
            prefix: false,
            at_start: false,
        }
    }
}

impl RelevanceBuilder<'_> {
    /// The tantivy query of `expression`.
    pub fn build_expression(
        &self,
        expression: &MatchExpression,
    ) -> Result<Box<dyn Query>, SearchError> {
        Ok(match expression {
            MatchExpression::Text(text) => self.build(text)?,
            MatchExpression::All(items) => self.combine(items, Occur::Must)?,
            MatchExpression::Any(items) => self.combine(items, Occur::Should)?,
            MatchExpression::Without { matching, excluded } => Box::new(BooleanQuery::new(vec![
                (Occur::Must, self.build_expression(matching)?),
                (Occur::MustNot, self.build_expression(excluded)?),
            ])),
            MatchExpression::Near { phrases, max_gap } => self.near(phrases, *max_gap)?,
            MatchExpression::Nothing => Box::new(EmptyQuery),
        })
    }

    /// A NEAR group, a prefixed phrase or an anchored one: a lone word prefix by its exact
    /// forms, anything else by positions.
    fn near(&self, phrases: &[NearPhrase], max_gap: u32) -> Result<Box<dyn Query>, SearchError> {
        if let [phrase] = phrases
            && phrase.prefix
            && !phrase.at_start
            && let Some(exact) = self.exact
            && let Some(word) = single_word(&phrase.text)
        {
            return self.word_prefix(exact, &word);
        }
        let mut slot_phrases = Vec::with_capacity(phrases.len());
        for phrase in phrases {
            let slots = self.slots(phrase)?;
            if slots.is_empty() || slots.iter().any(Vec::is_empty) {
                return Ok(Box::new(EmptyQuery));
            }
            slot_phrases.push(SlotPhrase {
                slots,
                at_start: phrase.at_start,
            });
        }
        Ok(Box::new(PositionalQuery::new(
            self.text,
            slot_phrases,
            max_gap,
        )))
    }

    /// Events holding a word that begins with `prefix` in exact (unstemmed) form, ranked by
    /// BM25 of the stems of the words found.
    fn word_prefix(&self, exact: Field, prefix: &str) -> Result<Box<dyn Query>, SearchError> {
        let words = expand_prefix(self.searcher, exact, prefix)?;
        if words.is_empty() {
            return Ok(Box::new(EmptyQuery));
        }
        let any_word = BooleanQuery::new(
            words
                .iter()
                .map(|word| (Occur::Should, exact_term_query(exact, word)))
                .collect(),
        );
        let mut stems: Vec<String> = words.iter().flat_map(|word| self.stems(word)).collect();
        stems.sort_unstable();
        stems.dedup();
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(
            Occur::Must,
            Box::new(ConstScoreQuery::new(Box::new(any_word), 0.0)),
        )];
        clauses.extend(
            stems
                .iter()
                .map(|stem| (Occur::Should, self.stem_query(stem))),
        );
        Ok(Box::new(BooleanQuery::new(clauses)))
    }

    /// The token slots of a phrase in the stemmed text: each token's stem, and for a prefix
    /// the stems of the words beginning with its last token.
    fn slots(&self, phrase: &NearPhrase) -> Result<Vec<Vec<Term>>, SearchError> {
        let mut analyzer = self.stemmer.clone();
        let mut stream = analyzer.token_stream(&phrase.text);
        let mut tokens: Vec<(String, usize, usize)> = Vec::new();
        while stream.advance() {
            let token = stream.token();
            tokens.push((token.text.clone(), token.offset_from, token.offset_to));
        }
        let mut slots: Vec<Vec<Term>> = tokens
            .iter()
            .map(|(stem, _, _)| vec![self.stem_term(stem)])
            .collect();
        if phrase.prefix
            && let Some((_, from, to)) = tokens.last()
            && let Some(last) = slots.last_mut()
        {
            let mut prefix = String::new();
            lowercase_into(&phrase.text[*from..*to], &mut prefix);
            *last = self.prefix_stems(&prefix)?;
        }
        Ok(slots)
    }

    /// The stems (terms of `text`) of the indexed words beginning with `prefix`: found among
    /// the exact forms, so the prefix is compared with words as written; among the stems in an
    /// index without exact forms.
    fn prefix_stems(&self, prefix: &str) -> Result<Vec<Term>, SearchError> {
        let mut stems: Vec<String> = match self.exact {
            Some(exact) => expand_prefix(self.searcher, exact, prefix)?
                .iter()
                .filter_map(|word| match self.stems(word).as_slice() {
                    [single] => Some(single.clone()),
                    _ => None,
                })
                .collect(),
            None => expand_prefix(self.searcher, self.text, prefix)?,
        };
        stems.sort_unstable();
        stems.dedup();
        Ok(stems.iter().map(|stem| self.stem_term(stem)).collect())
    }

    fn combine(
        &self,
        items: &[MatchExpression],
        occur: Occur,
    ) -> Result<Box<dyn Query>, SearchError> {
        let clauses = items
            .iter()
            .map(|item| Ok((occur, self.build_expression(item)?)))
            .collect::<Result<Vec<_>, SearchError>>()?;
        Ok(Box::new(BooleanQuery::new(clauses)))
    }
}

/// The one exact part of `text` when it is a single word (one run of one part), lowercased.
fn single_word(text: &str) -> Option<String> {
    let mut all = runs(text);
    let run = all.next()?;
    if all.next().is_some() {
        return None;
    }
    let forms = forms_of(&run);
    match (forms.whole, forms.parts.as_slice()) {
        (None, [part]) => Some(part.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventType;
    use crate::search::SearchQuery;
    use crate::search::tests::{event, index_of};

    fn text(words: &str) -> MatchExpression {
        MatchExpression::Text(words.to_owned())
    }

    fn matching_ids(expression: &MatchExpression) -> Vec<String> {
        let (_dir, index) = index_of(&[
            event("event:a", "session:s", "parquet migration failed"),
            event("event:b", "session:s", "parquet export succeeded"),
            event("event:c", "session:s", "the migration of users"),
            event("event:d", "session:s", "failed to connect"),
        ]);
        let scope = SearchQuery {
            text: "ignored",
            session_id: None,
            turn_id: None,
            event_types: &EventType::SEARCHABLE,
            source: None,
            sessions: None,
            limit: 10,
            cancel: None,
        };
        let mut ids: Vec<String> = index
            .search_expression(expression, &scope)
            .expect("search runs")
            .hits
            .into_iter()
            .map(|hit| hit.event_id)
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn operators_decide_which_events_match() {
        let all = MatchExpression::All(vec![text("parquet"), text("migration")]);
        assert_eq!(matching_ids(&all), ["event:a"]);
        let any = MatchExpression::Any(vec![text("export"), text("connect")]);
        assert_eq!(matching_ids(&any), ["event:b", "event:d"]);
        let without = MatchExpression::Without {
            matching: Box::new(text("parquet")),
            excluded: Box::new(text("failed")),
        };
        assert_eq!(matching_ids(&without), ["event:b"]);
        let phrase = MatchExpression::All(vec![text("\"migration failed\"")]);
        assert_eq!(matching_ids(&phrase), ["event:a"]);
        let nested = MatchExpression::Any(vec![
            MatchExpression::All(vec![text("migration"), text("users")]),
            text("connect"),
        ]);
        assert_eq!(matching_ids(&nested), ["event:c", "event:d"]);
    }

    fn positional_ids(expression: &MatchExpression) -> Vec<String> {
        let (_dir, index) = index_of(&[
            event(
                "event:a",
                "session:s",
                "the parquet migration failed at noon",
            ),
            event(
                "event:b",
                "session:s",
                "migrating the parquet files took long and then the schema finally changed",
            ),
            event(
                "event:c",
                "session:s",
                "schema drift detected in parquet export",
            ),
            event(
                "event:d",
                "session:s",
                "happiness is a warm getUserName call",
            ),
            event(
                "event:e",
                "session:s",
                "parquet x x x x x x x x x x x x migration",
            ),
        ]);
        let scope = SearchQuery {
            text: "ignored",
            session_id: None,
            turn_id: None,
            event_types: &EventType::SEARCHABLE,
            source: None,
            sessions: None,
            limit: 10,
            cancel: None,
        };
        let mut ids: Vec<String> = index
            .search_expression(expression, &scope)
            .expect("search runs")
            .hits
            .into_iter()
            .map(|hit| hit.event_id)
            .collect();
        ids.sort();
        ids
    }

    fn near(phrases: &[NearPhrase], max_gap: u32) -> MatchExpression {
        MatchExpression::Near {
            phrases: phrases.to_vec(),
            max_gap,
        }
    }

    fn prefix(text: &str) -> NearPhrase {
        NearPhrase {
            prefix: true,
            ..NearPhrase::plain(text)
        }
    }

    fn anchored(text: &str) -> NearPhrase {
        NearPhrase {
            at_start: true,
            ..NearPhrase::plain(text)
        }
    }

    #[test]
    fn a_word_prefix_matches_the_words_beginning_with_it_as_written() {
        assert_eq!(
            positional_ids(&near(&[prefix("migrat")], 0)),
            ["event:a", "event:b", "event:e"]
        );
        assert_eq!(positional_ids(&near(&[prefix("happ")], 0)), ["event:d"]);
        assert_eq!(
            positional_ids(&near(&[prefix("HAPPINESS")], 0)),
            ["event:d"]
        );
        assert_eq!(positional_ids(&near(&[prefix("getuser")], 0)), ["event:d"]);
        assert!(positional_ids(&near(&[prefix("happy")], 0)).is_empty());
        assert!(positional_ids(&near(&[prefix("zzz")], 0)).is_empty());
    }

    #[test]
    fn near_groups_bound_the_tokens_between_phrases_in_any_order() {
        let parquet_migration = [NearPhrase::plain("parquet"), NearPhrase::plain("migration")];
        assert_eq!(
            positional_ids(&near(&parquet_migration, 10)),
            ["event:a", "event:b"]
        );
        assert_eq!(positional_ids(&near(&parquet_migration, 0)), ["event:a"]);
        assert_eq!(
            positional_ids(&near(&parquet_migration, 12)),
            ["event:a", "event:b", "event:e"]
        );
        let with_prefix = [prefix("migrat"), NearPhrase::plain("schema")];
        assert_eq!(positional_ids(&near(&with_prefix, 10)), ["event:b"]);
        assert!(positional_ids(&near(&with_prefix, 7)).is_empty());
        let phrases = [
            NearPhrase::plain("schema drift"),
            NearPhrase::plain("export"),
        ];
        assert_eq!(positional_ids(&near(&phrases, 3)), ["event:c"]);
        assert!(positional_ids(&near(&phrases, 2)).is_empty());
    }

    #[test]
    fn a_phrase_prefix_and_an_anchor_check_positions() {
        assert_eq!(
            positional_ids(&near(&[prefix("schema dri")], 0)),
            ["event:c"]
        );
        assert!(positional_ids(&near(&[prefix("drift schem")], 0)).is_empty());
        assert_eq!(positional_ids(&near(&[anchored("schema")], 0)), ["event:c"]);
        assert_eq!(
            positional_ids(&near(&[anchored("the parquet")], 0)),
            ["event:a"]
        );
        assert_eq!(
            positional_ids(&near(&[anchored("parquet")], 0)),
            ["event:e"]
        );
        assert!(positional_ids(&near(&[anchored("noon")], 0)).is_empty());
        assert!(positional_ids(&MatchExpression::Nothing).is_empty());
    }
}
