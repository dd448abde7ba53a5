//! Continuation chains as the tools show them: the additive `chain` object of a session
//! (`{slug, session_number, session_count}`, null for a session alone) and relay-search's
//! session range syntax (`"4"`, `"4-5"`, `"1,3,5"`, `"1,3-5"`) with its exact error messages.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::service::rows::{Row, RowError};

/// Where a session sits in its chain, as read from `sessions.chain_*`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainBrief {
    pub slug: Option<String>,
    pub number: i64,
    pub length: i64,
}

/// The session row's chain (`None` for a session alone).
pub fn chain_of(row: &Row<'_>) -> Result<Option<ChainBrief>, RowError> {
    let (Some(number), Some(length)) = (row.opt_i64("chain_number")?, row.opt_i64("chain_length")?)
    else {
        return Ok(None);
    };
    Ok(Some(ChainBrief {
        slug: row.opt_string("chain_slug")?.map(str::to_owned),
        number,
        length,
    }))
}

/// The `chain` object (or `null`).
pub fn chain_json(chain: Option<&ChainBrief>) -> Value {
    match chain {
        Some(chain) => json!({
            "slug": chain.slug,
            "session_number": chain.number,
            "session_count": chain.length,
        }),
        None => Value::Null,
    }
}

/// The row's `chain` object (or `null`).
pub fn row_chain_json(row: &Row<'_>) -> Result<Value, RowError> {
    chain_of(row).map(|chain| chain_json(chain.as_ref()))
}

/// Parses a 1-based, inclusive session range against a chain of `total` sessions into sorted,
/// deduplicated 0-based positions. The messages are relay-search's, verbatim.
pub fn parse_session_range(text: &str, total: usize) -> Result<Vec<usize>, String> {
    if text.trim().is_empty() {
        return Err("Empty session range".to_string());
    }
    let mut positions = BTreeSet::new();
    for part in text.split(',') {
        let part = part.trim();
        if let Some((start, end)) = part.split_once('-') {
            let (Some(start), Some(end)) = (integer(start), integer(end)) else {
                return Err(format!("Invalid range: {part}"));
            };
            if start > end {
                return Err(format!("Invalid range: {part} (start > end)"));
            }
            if start < 1 || end > total as i64 {
                return Err(format!("Session {start}-{end} out of range (1-{total})"));
            }
            positions.extend((start - 1) as usize..end as usize);
        } else {
            let Some(number) = integer(part) else {
                return Err(format!("Invalid session number: {part}"));
            };
            if number < 1 || number > total as i64 {
                return Err(format!("Session {number} out of range (1-{total})"));
            }
            positions.insert((number - 1) as usize);
        }
    }
    Ok(positions.into_iter().collect())
}

/// An integer as Python's `int()` reads one: surrounding blanks and a sign allowed.
fn integer(text: &str) -> Option<i64> {
    let text = text.trim();
    text.strip_prefix('+')
        .unwrap_or(text)
        .parse()
        .ok()
        .filter(|_| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_as_the_seed_describes() {
        assert_eq!(parse_session_range("4", 6), Ok(vec![3]));
        assert_eq!(parse_session_range("4-5", 6), Ok(vec![3, 4]));
        assert_eq!(parse_session_range("1,3,5", 6), Ok(vec![0, 2, 4]));
        assert_eq!(parse_session_range("1,3-5", 6), Ok(vec![0, 2, 3, 4]));
        assert_eq!(
            parse_session_range(" 2 , 1-2 ,2", 6),
            Ok(vec![0, 1]),
            "deduplicated, sorted"
        );
        assert_eq!(parse_session_range("6", 6), Ok(vec![5]));
        assert_eq!(parse_session_range("1-6", 6), Ok((0..6).collect()));
    }

    #[test]
    fn bad_ranges_get_relays_exact_messages() {
        let error = |text: &str| parse_session_range(text, 6).unwrap_err();
        assert_eq!(error("7"), "Session 7 out of range (1-6)");
        assert_eq!(error("0"), "Session 0 out of range (1-6)");
        assert_eq!(error("5-7"), "Session 5-7 out of range (1-6)");
        assert_eq!(error("0-2"), "Session 0-2 out of range (1-6)");
        assert_eq!(error(""), "Empty session range");
        assert_eq!(error("   "), "Empty session range");
        assert_eq!(error("abc"), "Invalid session number: abc");
        assert_eq!(error("1,,2"), "Invalid session number: ");
        assert_eq!(error("5-3"), "Invalid range: 5-3 (start > end)");
        assert_eq!(error("a-3"), "Invalid range: a-3");
        assert_eq!(error("-1"), "Invalid range: -1");
        assert_eq!(error("1-2-3"), "Invalid range: 1-2-3");
    }
}
