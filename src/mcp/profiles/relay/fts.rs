//! relay-search's query syntax (SQLite FTS5's: implicit AND between terms, `AND`, `OR`, `NOT`,
//! `"quoted phrases"`, parentheses, `NEAR(a b "c d", N)`, prefixes `migrat*` and `"schema dri"*`,
//! `^` for the first token, `a + b` phrase joins, column filters) read into a [`MatchExpression`] over esker's tantivy
//! query. Precedence as in FTS5: `NOT` binds tightest, then `AND` (or nothing), then `OR`. Each
//! word or phrase is matched the way `search_sessions` matches it (stems and exact forms;
//! identifiers such as `src/x.rs` or `snake_case` whole), so esker is more lenient than FTS5
//! about punctuation inside words. relay's FTS5 table has one column, `content`: a filter naming
//! it (`content:x`, `{content}: x`) changes nothing, one excluding it (`-content: x`) matches
//! nothing, any other name is FTS5's `no such column` error.

use crate::search::boolean::{MatchExpression, NearPhrase};
use crate::search::positional::DEFAULT_NEAR_DISTANCE;

/// FTS5's phrase join: `a + b` is the phrase `"a b"`.
const PLUS: &str = "+";

/// The one column of relay's `messages_fts` table.
const COLUMN: &str = "content";

/// A parsed query: what must match, and the words and prefixes that count for snippet marks
/// (those not under `NOT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FtsQuery {
    pub expression: MatchExpression,
    pub marked_words: String,
    /// The prefixes (`migrat*`: `migrat`), lowercased.
    pub marked_prefixes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Term(String),
    Phrase(String),
    And,
    Or,
    Not,
    /// `NEAR` followed by `(`.
    Near,
    Open,
    Close,
    Comma,
    Star,
    Caret,
    /// A column filter: `name:`, `{a b}:`, with a leading `-` excluding them.
    Columns {
        names: Vec<String>,
        exclude: bool,
    },
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
            Token::Near => "NEAR".into(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
            Token::Comma => ",".into(),
            Token::Star => "*".into(),
            Token::Caret => "^".into(),
            Token::Columns { names, .. } => names.join(" "),
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
        marked_prefixes: Vec::new(),
    };
    let expression = parser.any_of(true)?;
    if let Some(extra) = parser.peek() {
        return Err(syntax_error_near(&extra.text()));
    }
    Ok(FtsQuery {
        expression,
        marked_words: parser.marked.join(" "),
        marked_prefixes: parser.marked_prefixes,
    })
}

fn syntax_error_near(text: &str) -> String {
    format!("fts5: syntax error near \"{text}\"")
}

type Characters<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// A character FTS5 allows in a bareword (and so in a column name).
fn is_bareword_character(character: char) -> bool {
    character.is_ascii_alphanumeric() || character == '_' || !character.is_ascii()
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut characters = text.chars().peekable();
    while let Some(&character) = characters.peek() {
        let single = match character {
            '(' => Some(Token::Open),
            ')' => Some(Token::Close),
            ',' => Some(Token::Comma),
            '*' => Some(Token::Star),
            '^' => Some(Token::Caret),
            _ => None,
        };
        if let Some(token) = single {
            characters.next();
            tokens.push(token);
            continue;
        }
        match character {
            _ if character.is_whitespace() => {
                characters.next();
            }
            '"' => {
                characters.next();
                tokens.push(Token::Phrase(quoted(&mut characters)?));
            }
            '{' => tokens.push(column_set(&mut characters, false)?),
            '-' if excludes_columns(&characters) => {
                characters.next();
                if characters.peek() == Some(&'{') {
                    tokens.push(column_set(&mut characters, true)?);
                } else {
                    tokens.push(word(&mut characters, true));
                }
            }
            _ => tokens.push(word(&mut characters, false)),
        }
    }
    Ok(tokens)
}

/// Whether the `-` at the cursor starts an excluding column filter (`-{a b}:`, `-name:`).
fn excludes_columns(characters: &Characters<'_>) -> bool {
    let mut ahead = characters.clone();
    ahead.next();
    if ahead.peek() == Some(&'{') {
        return true;
    }
    let name: String = ahead
        .by_ref()
        .take_while(|&next| is_bareword_character(next))
        .collect();
    !name.is_empty() && text_after_name_is_colon(characters, name.chars().count())
}

/// Whether the character after `-` and a name of `length` characters is `:`.
fn text_after_name_is_colon(characters: &Characters<'_>, length: usize) -> bool {
    characters.clone().nth(length + 1) == Some(':')
}

/// A word (an operator, `NEAR`, or a term), or a column filter when it is a bareword followed
/// by `:`. The word ends at whitespace, a parenthesis, a quote, a comma or `*`.
fn word(characters: &mut Characters<'_>, exclude: bool) -> Token {
    let mut word = String::new();
    while let Some(&next) = characters.peek() {
        if next.is_whitespace() || matches!(next, '(' | ')' | '"' | ',' | '*') {
            break;
        }
        if next == ':' && is_column_name(&word) {
            characters.next();
            return Token::Columns {
                names: vec![word],
                exclude,
            };
        }
        word.push(next);
        characters.next();
    }
    if is_column_name(&word) && colon_follows(characters) {
        return Token::Columns {
            names: vec![word],
            exclude,
        };
    }
    match word.as_str() {
        "AND" => Token::And,
        "OR" => Token::Or,
        "NOT" => Token::Not,
        "NEAR" if characters.clone().find(|next| !next.is_whitespace()) == Some('(') => Token::Near,
        _ => Token::Term(word),
    }
}

fn is_column_name(word: &str) -> bool {
    !word.is_empty() && word.chars().all(is_bareword_character)
}

/// Whether `:` comes next, after any whitespace (consumed with it when it does).
fn colon_follows(characters: &mut Characters<'_>) -> bool {
    if characters.clone().find(|next| !next.is_whitespace()) != Some(':') {
        return false;
    }
    while characters.next() != Some(':') {}
    true
}

/// `{name name ...}` then `:`.
fn column_set(characters: &mut Characters<'_>, exclude: bool) -> Result<Token, String> {
    characters.next();
    let mut inside = String::new();
    loop {
        match characters.next() {
            None => return Err(syntax_error_near("")),
            Some('}') => break,
            Some(other) => inside.push(other),
        }
    }
    let names: Vec<String> = inside.split_whitespace().map(str::to_owned).collect();
    if names.is_empty() {
        return Err(syntax_error_near("}"));
    }
    if let Some(bad) = names
        .iter()
        .find(|name| !name.chars().all(is_bareword_character))
    {
        return Err(syntax_error_near(bad));
    }
    while characters.peek().is_some_and(|next| next.is_whitespace()) {
        characters.next();
    }
    match characters.next() {
        Some(':') => Ok(Token::Columns { names, exclude }),
        Some(other) => Err(syntax_error_near(&other.to_string())),
        None => Err(syntax_error_near("")),
    }
}

/// The rest of a quoted string (`""` is a quote inside it, read as a space: the phrase query
/// matches words, and a quote would end it).
fn quoted(characters: &mut Characters<'_>) -> Result<String, String> {
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

/// Refuses a filter naming a column relay's table does not have (FTS5 compares names
/// case-insensitively).
fn check_columns(names: &[String]) -> Result<(), String> {
    match names.iter().find(|name| !name.eq_ignore_ascii_case(COLUMN)) {
        Some(unknown) => Err(format!("no such column: {unknown}")),
        None => Ok(()),
    }
}

/// A NEAR group's distance: digits only, as FTS5 reads it.
fn near_distance(text: &str) -> Result<u32, String> {
    if text.is_empty() || !text.chars().all(|digit| digit.is_ascii_digit()) {
        return Err(format!("expected integer, got \"{text}\""));
    }
    Ok(text.parse().unwrap_or(u32::MAX))
}

struct Parser {
    tokens: Vec<Token>,
    position: usize,
    /// Words and phrases outside `NOT`, for snippet marks.
    marked: Vec<String>,
    /// The prefixes among them, lowercased.
    marked_prefixes: Vec<String>,
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
                Some(
                    Token::Term(_)
                    | Token::Phrase(_)
                    | Token::Open
                    | Token::Near
                    | Token::Caret
                    | Token::Columns { .. },
                ) => {}
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

    /// A word, a phrase (either with `*` or `^`), a NEAR group, a parenthesised query, or one
    /// of these behind a column filter.
    fn primary(&mut self, marked: bool) -> Result<MatchExpression, String> {
        match self.next() {
            Some(Token::Columns { names, exclude }) => {
                check_columns(&names)?;
                let filtered = self.primary(marked && !exclude)?;
                Ok(if exclude {
                    MatchExpression::Nothing
                } else {
                    filtered
                })
            }
            Some(token @ (Token::Term(_) | Token::Phrase(_))) => {
                let phrase = self.phrase(token, false, marked)?;
                Ok(phrase_expression(phrase))
            }
            Some(Token::Caret) => match self.next() {
                Some(token @ (Token::Term(_) | Token::Phrase(_))) => {
                    let phrase = self.phrase(token, true, marked)?;
                    Ok(phrase_expression(phrase))
                }
                Some(other) => Err(syntax_error_near(&other.text())),
                None => Err(syntax_error_near("")),
            },
            Some(Token::Near) => self.near_group(marked),
            Some(Token::Open) => {
                let inner = self.any_of(marked)?;
                self.close()?;
                Ok(inner)
            }
            Some(other) => Err(syntax_error_near(&other.text())),
            None => Err(syntax_error_near("")),
        }
    }

    fn close(&mut self) -> Result<(), String> {
        match self.next() {
            Some(Token::Close) => Ok(()),
            Some(other) => Err(syntax_error_near(&other.text())),
            None => Err(syntax_error_near("")),
        }
    }

    /// The word or quoted phrase `token`, joined to the words or phrases after it by `+`, with
    /// the `*` that may follow the last.
    fn phrase(&mut self, token: Token, at_start: bool, marked: bool) -> Result<Parsed, String> {
        let (mut text, mut quoted) = match token {
            Token::Term(word) => (word, false),
            Token::Phrase(phrase) => (phrase, true),
            other => return Err(syntax_error_near(&other.text())),
        };
        while self.peek() == Some(&Token::Term(PLUS.into())) {
            self.next();
            match self.next() {
                Some(Token::Term(next) | Token::Phrase(next)) => {
                    text.push(' ');
                    text.push_str(&next);
                    quoted = true;
                }
                Some(other) => return Err(syntax_error_near(&other.text())),
                None => return Err(syntax_error_near("")),
            }
        }
        let prefix = self.peek() == Some(&Token::Star);
        if prefix {
            self.next();
        }
        if marked {
            self.marked.push(text.clone());
            if prefix && let Some(last) = last_word(&text) {
                self.marked_prefixes.push(last);
            }
        }
        Ok(Parsed {
            phrase: NearPhrase {
                text,
                prefix,
                at_start,
            },
            quoted,
        })
    }

    /// `NEAR(phrase phrase ... [, N])`, the `NEAR` read.
    fn near_group(&mut self, marked: bool) -> Result<MatchExpression, String> {
        self.next();
        let mut phrases = Vec::new();
        let mut max_gap = DEFAULT_NEAR_DISTANCE;
        loop {
            match self.next() {
                Some(token @ (Token::Term(_) | Token::Phrase(_))) => {
                    phrases.push(self.phrase(token, false, marked)?.phrase);
                }
                Some(Token::Comma) if !phrases.is_empty() => {
                    max_gap = match self.next() {
                        Some(Token::Term(distance)) => near_distance(&distance)?,
                        Some(other) => return Err(syntax_error_near(&other.text())),
                        None => return Err(syntax_error_near("")),
                    };
                    self.close()?;
                    break;
                }
                Some(Token::Close) if !phrases.is_empty() => break,
                Some(other) => return Err(syntax_error_near(&other.text())),
                None => return Err(syntax_error_near("")),
            }
        }
        Ok(MatchExpression::Near { phrases, max_gap })
    }
}

/// The last word of a phrase (what its `*` applies to), lowercased.
fn last_word(text: &str) -> Option<String> {
    text.split(|character: char| !character.is_alphanumeric())
        .rfind(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// A word or phrase as parsed, and whether it was quoted.
struct Parsed {
    phrase: NearPhrase,
    quoted: bool,
}

/// A plain word or phrase as `search_sessions` text; a prefixed or anchored one as a NEAR
/// group of one.
fn phrase_expression(parsed: Parsed) -> MatchExpression {
    let Parsed { phrase, quoted } = parsed;
    match (phrase.prefix || phrase.at_start, quoted) {
        (false, false) => MatchExpression::Text(phrase.text),
        (false, true) => MatchExpression::Text(format!("\"{}\"", phrase.text)),
        (true, _) => MatchExpression::Near {
            phrases: vec![phrase],
            max_gap: 0,
        },
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
    }

    fn near(phrases: &[NearPhrase], max_gap: u32) -> MatchExpression {
        MatchExpression::Near {
            phrases: phrases.to_vec(),
            max_gap,
        }
    }

    fn plain(text: &str) -> NearPhrase {
        NearPhrase::plain(text)
    }

    fn prefix(text: &str) -> NearPhrase {
        NearPhrase {
            prefix: true,
            ..NearPhrase::plain(text)
        }
    }

    fn anchored(phrase: NearPhrase) -> NearPhrase {
        NearPhrase {
            at_start: true,
            ..phrase
        }
    }

    #[test]
    fn near_groups_take_phrases_prefixes_and_a_distance() {
        assert_eq!(
            expression("NEAR(parquet schema)"),
            near(&[plain("parquet"), plain("schema")], 10)
        );
        assert_eq!(
            expression("NEAR(parquet \"schema drift\" migrat*, 3)"),
            near(
                &[plain("parquet"), plain("schema drift"), prefix("migrat")],
                3
            )
        );
        assert_eq!(
            expression("NEAR (a b,0)"),
            near(&[plain("a"), plain("b")], 0)
        );
        assert_eq!(expression("NEAR(solo)"), near(&[plain("solo")], 10));
        assert_eq!(
            expression("x OR NEAR(a b) NOT c"),
            Any(vec![
                text("x"),
                Without {
                    matching: Box::new(near(&[plain("a"), plain("b")], 10)),
                    excluded: Box::new(text("c")),
                },
            ])
        );
        assert_eq!(expression("NEAR"), text("NEAR"));
        assert_eq!(
            expression("near(a b)"),
            All(vec![text("near"), All(vec![text("a"), text("b")])])
        );
    }

    #[test]
    fn prefixes_and_anchors_are_groups_of_one_phrase() {
        assert_eq!(expression("migrat*"), near(&[prefix("migrat")], 0));
        assert_eq!(expression("migrat *"), near(&[prefix("migrat")], 0));
        assert_eq!(
            expression("\"schema dri\"*"),
            near(&[prefix("schema dri")], 0)
        );
        assert_eq!(
            expression("^parquet"),
            near(&[anchored(plain("parquet"))], 0)
        );
        assert_eq!(
            expression("^\"the parquet\""),
            near(&[anchored(plain("the parquet"))], 0)
        );
        assert_eq!(
            expression("^migrat*"),
            near(&[anchored(prefix("migrat"))], 0)
        );
        assert_eq!(
            expression("a*b"),
            All(vec![near(&[prefix("a")], 0), text("b")])
        );
        let marks = parse("migrat* NOT legacy* \"Schema Dri\"*").unwrap();
        assert_eq!(marks.marked_words, "migrat Schema Dri");
        assert_eq!(marks.marked_prefixes, ["migrat", "dri"]);
        assert_eq!(expression("schema + drift"), text("\"schema drift\""));
        assert_eq!(
            expression("\"a b\" + c + d*"),
            near(&[prefix("a b c d")], 0)
        );
        assert_eq!(expression("c++"), text("c++"));
    }

    #[test]
    fn column_filters_name_relays_only_column() {
        assert_eq!(expression("content:parquet"), text("parquet"));
        assert_eq!(expression("CONTENT : parquet"), text("parquet"));
        assert_eq!(expression("{content}: \"a b\""), text("\"a b\""));
        assert_eq!(expression("{ content content } : x"), text("x"));
        assert_eq!(
            expression("content:(a OR b)"),
            Any(vec![text("a"), text("b")])
        );
        assert_eq!(expression("-content:parquet"), MatchExpression::Nothing);
        assert_eq!(expression("-{content}: parquet"), MatchExpression::Nothing);
        assert_eq!(expression("-parquet"), text("-parquet"));
        assert_eq!(expression("src/main.rs:42"), text("src/main.rs:42"));
        assert_eq!(
            parse("-content:hidden shown").unwrap().marked_words,
            "shown"
        );
    }

    #[test]
    fn malformed_new_forms_get_sqlite_wording() {
        let error = |query: &str| parse(query).unwrap_err();
        assert_eq!(error("NEAR(a b"), "fts5: syntax error near \"\"");
        assert_eq!(error("NEAR()"), "fts5: syntax error near \")\"");
        assert_eq!(error("NEAR(a AND b)"), "fts5: syntax error near \"AND\"");
        assert_eq!(error("NEAR(a b, x)"), "expected integer, got \"x\"");
        assert_eq!(error("NEAR(a b, 5x)"), "expected integer, got \"5x\"");
        assert_eq!(error("NEAR(a b,)"), "fts5: syntax error near \")\"");
        assert_eq!(error("NEAR(a b, 3 4)"), "fts5: syntax error near \"4\"");
        assert_eq!(error("NEAR(a (b))"), "fts5: syntax error near \"(\"");
        assert_eq!(error("NEAR(^a b)"), "fts5: syntax error near \"^\"");
        assert_eq!(error("*"), "fts5: syntax error near \"*\"");
        assert_eq!(error("a OR *"), "fts5: syntax error near \"*\"");
        assert_eq!(error("^"), "fts5: syntax error near \"\"");
        assert_eq!(error("^(a)"), "fts5: syntax error near \"(\"");
        assert_eq!(error("a ,"), "fts5: syntax error near \",\"");
        assert_eq!(error("a +"), "fts5: syntax error near \"\"");
        assert_eq!(error("a + (b)"), "fts5: syntax error near \"(\"");
        assert_eq!(error("title:parquet"), "no such column: title");
        assert_eq!(error("error : refused"), "no such column: error");
        assert_eq!(error("{content title}: x"), "no such column: title");
        assert_eq!(error("-author:x"), "no such column: author");
        assert_eq!(error("{}: x"), "fts5: syntax error near \"}\"");
        assert_eq!(error("{content} x"), "fts5: syntax error near \"x\"");
        assert_eq!(error("{content"), "fts5: syntax error near \"\"");
        assert_eq!(error("content:"), "fts5: syntax error near \"\"");
    }
}
