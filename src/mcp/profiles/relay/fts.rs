//! relay-search's query syntax (SQLite FTS5's: implicit AND between terms, `AND`, `OR`, `NOT`,
//! `"quoted phrases"`, parentheses) read into a [`MatchExpression`] over esker's tantivy query.
//! Precedence as in FTS5: `NOT` binds tightest, then `AND` (or nothing), then `OR`. Each word or
//! phrase is matched the way `search_sessions` matches it (stems and exact forms; identifiers
//! such as `src/x.rs` or `snake_case` whole), so esker is more lenient than FTS5 about
//! punctuation inside words; a trailing `*` (FTS5's prefix query) matches the word itself.

use crate::search::boolean::MatchExpression;

/// A parsed query: what must match, and the words that count for snippet marks (those not
/// under `NOT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FtsQuery {
    pub expression: MatchExpression,
    pub marked_words: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Term(String),
    Phrase(String),
    And,
    Or,
    Not,
    Open,
    Close,
}

impl Token {
    /// The token as it reads in the query (for "syntax error near" messages).
    fn text(&self) -> String {
        match self {
            Token::Term(word) => word.clone(),
            Token::Phrase(phrase) => format!("\"{phrase}\""),
            Token::And => "AND".into(),
            Token::Or => "OR".into(),
            Token::Not => "NOT".into(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
        }
    }
}

/// Parses `text`; the error is SQLite's wording (`fts5: syntax error near "AND"`).
pub fn parse(text: &str) -> Result<FtsQuery, String> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens,
        position: 0,
        marked: Vec::new(),
    };
    let expression = parser.any_of(true)?;
    if let Some(extra) = parser.peek() {
        return Err(syntax_error_near(&extra.text()));
    }
    Ok(FtsQuery {
        expression,
        marked_words: parser.marked.join(" "),
    })
}

fn syntax_error_near(text: &str) -> String {
    format!("fts5: syntax error near \"{text}\"")
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut characters = text.chars().peekable();
    while let Some(&character) = characters.peek() {
        match character {
            _ if character.is_whitespace() => {
                characters.next();
            }
            '(' => {
                characters.next();
                tokens.push(Token::Open);
            }
            ')' => {
                characters.next();
                tokens.push(Token::Close);
            }
            '"' => {
                characters.next();
                tokens.push(Token::Phrase(quoted(&mut characters)?));
            }
            _ => {
                let mut word = String::new();
                while let Some(&next) = characters.peek() {
                    if next.is_whitespace() || matches!(next, '(' | ')' | '"') {
                        break;
                    }
                    word.push(next);
                    characters.next();
                }
                tokens.push(match word.as_str() {
                    "AND" => Token::And,
                    "OR" => Token::Or,
                    "NOT" => Token::Not,
                    "NEAR" if characters.peek() == Some(&'(') => {
                        return Err("fts5: NEAR queries are not supported".into());
                    }
                    _ => Token::Term(word.trim_start_matches('^').trim_end_matches('*').into()),
                });
            }
        }
    }
    Ok(tokens)
}

/// The rest of a quoted string (`""` is a quote inside it, read as a space: the phrase query
/// matches words, and a quote would end it).
fn quoted(characters: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<String, String> {
    let mut phrase = String::new();
    loop {
        match characters.next() {
            None => return Err("fts5: unterminated string".into()),
            Some('"') if characters.peek() == Some(&'"') => {
                characters.next();
                phrase.push(' ');
            }
            Some('"') => return Ok(phrase),
            Some(other) => phrase.push(other),
        }
    }
}

struct Parser {
    tokens: Vec<Token>,
    position: usize,
    /// Words and phrases outside `NOT`, for snippet marks.
    marked: Vec<String>,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.position)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.position).cloned();
        self.position += 1;
        token
    }

    /// `all_of (OR all_of)*`
    fn any_of(&mut self, marked: bool) -> Result<MatchExpression, String> {
        let mut items = vec![self.all_of(marked)?];
        while self.peek() == Some(&Token::Or) {
            self.next();
            items.push(self.all_of(marked)?);
        }
        Ok(single_or(items, MatchExpression::Any))
    }

    /// `without ([AND] without)*`
    fn all_of(&mut self, marked: bool) -> Result<MatchExpression, String> {
        let mut items = vec![self.without(marked)?];
        loop {
            match self.peek() {
                Some(Token::And) => {
                    self.next();
                }
                Some(Token::Term(_) | Token::Phrase(_) | Token::Open) => {}
                _ => break,
            }
            items.push(self.without(marked)?);
        }
        Ok(single_or(items, MatchExpression::All))
    }

    /// `primary (NOT primary)*`
    fn without(&mut self, marked: bool) -> Result<MatchExpression, String> {
        let mut expression = self.primary(marked)?;
        while self.peek() == Some(&Token::Not) {
            self.next();
            let excluded = self.primary(false)?;
            expression = MatchExpression::Without {
                matching: Box::new(expression),
                excluded: Box::new(excluded),
            };
        }
        Ok(expression)
    }

    /// A word, a phrase or a parenthesised query.
    fn primary(&mut self, marked: bool) -> Result<MatchExpression, String> {
        match self.next() {
            Some(Token::Term(word)) => {
                if marked {
                    self.marked.push(word.clone());
                }
                Ok(MatchExpression::Text(word))
            }
            Some(Token::Phrase(phrase)) => {
                if marked {
                    self.marked.push(phrase.clone());
                }
                Ok(MatchExpression::Text(format!("\"{phrase}\"")))
            }
            Some(Token::Open) => {
                let inner = self.any_of(marked)?;
                match self.next() {
                    Some(Token::Close) => Ok(inner),
                    Some(other) => Err(syntax_error_near(&other.text())),
                    None => Err(syntax_error_near("")),
                }
            }
            Some(other) => Err(syntax_error_near(&other.text())),
            None => Err(syntax_error_near("")),
        }
    }
}

fn single_or(
    mut items: Vec<MatchExpression>,
    combine: fn(Vec<MatchExpression>) -> MatchExpression,
) -> MatchExpression {
    if items.len() == 1 {
        items.remove(0)
    } else {
        combine(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MatchExpression::{All, Any, Text, Without};

    fn text(word: &str) -> MatchExpression {
        Text(word.into())
    }

    fn expression(query: &str) -> MatchExpression {
        parse(query).unwrap().expression
    }

    #[test]
    fn terms_are_anded_and_operators_follow_fts5_precedence() {
        assert_eq!(expression("parquet"), text("parquet"));
        assert_eq!(
            expression("parquet migration"),
            All(vec![text("parquet"), text("migration")])
        );
        assert_eq!(expression("a AND b"), All(vec![text("a"), text("b")]));
        assert_eq!(
            expression("a OR b c"),
            Any(vec![text("a"), All(vec![text("b"), text("c")])])
        );
        assert_eq!(
            expression("a NOT b c"),
            All(vec![
                Without {
                    matching: Box::new(text("a")),
                    excluded: Box::new(text("b")),
                },
                text("c"),
            ])
        );
        assert_eq!(
            expression("(a OR b) AND c"),
            All(vec![Any(vec![text("a"), text("b")]), text("c")])
        );
    }

    #[test]
    fn phrases_keep_their_quotes_for_the_phrase_query() {
        assert_eq!(
            expression("\"connection refused\" OR timeout"),
            Any(vec![text("\"connection refused\""), text("timeout")])
        );
        assert_eq!(expression("\"say \"\"hi\"\"\""), text("\"say  hi \""));
        assert_eq!(expression("migrat*"), text("migrat"));
        assert_eq!(expression("src/main.rs"), text("src/main.rs"));
        assert_eq!(expression("or and"), All(vec![text("or"), text("and")]));
    }

    #[test]
    fn marked_words_leave_out_what_not_excludes() {
        let parsed = parse("parquet NOT csv \"schema drift\"").unwrap();
        assert_eq!(parsed.marked_words, "parquet schema drift");
    }

    #[test]
    fn malformed_queries_get_sqlite_wording() {
        let error = |query: &str| parse(query).unwrap_err();
        assert_eq!(error(""), "fts5: syntax error near \"\"");
        assert_eq!(error("   "), "fts5: syntax error near \"\"");
        assert_eq!(error("AND parquet"), "fts5: syntax error near \"AND\"");
        assert_eq!(error("parquet OR"), "fts5: syntax error near \"\"");
        assert_eq!(error("NOT parquet"), "fts5: syntax error near \"NOT\"");
        assert_eq!(error("(parquet"), "fts5: syntax error near \"\"");
        assert_eq!(error("parquet)"), "fts5: syntax error near \")\"");
        assert_eq!(error("\"open quote"), "fts5: unterminated string");
        assert_eq!(error("NEAR(a b)"), "fts5: NEAR queries are not supported");
    }
}
