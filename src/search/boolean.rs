//! Boolean combinations of relevance queries (all of, any of, one without another) for query
//! languages with explicit operators, such as relay-search's FTS5 syntax: each leaf is query
//! text matched and scored exactly as `search_sessions` matches and scores it
//! ([`RelevanceBuilder::build`]), and the operators only decide which documents match; a
//! matching document's score is the sum of its matching leaves' scores.

use tantivy::query::{BooleanQuery, Occur, Query};

use super::SearchError;
use super::query::RelevanceBuilder;

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
        })
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
}
