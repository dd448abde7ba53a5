//! Splits a JSONL byte buffer into parsed JSON lines, holding back a half-written last line and
//! counting malformed complete lines.

use serde_json::Value;

use crate::model::ParseWarning;

/// One complete, valid JSON line of a source file.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonLine {
    /// 1-based line number in the file.
    pub number: u64,
    pub value: Value,
}

/// The complete lines of a buffer, and where the complete part ends.
#[derive(Debug, Default)]
pub struct SplitLines {
    pub lines: Vec<JsonLine>,
    /// Byte offset just past the last line that was consumed (valid or skipped as malformed).
    /// Everything from here on is held back until it is complete.
    pub complete_offset: u64,
    /// Complete lines that are not valid JSON, skipped.
    pub malformed: Vec<ParseWarning>,
    /// True when a trailing partial line was held back.
    pub held_back: bool,
}

/// Splits `bytes` into JSON lines.
///
/// A last line without a trailing newline, or a last line that is not yet valid JSON, is held
/// back: it is neither returned nor counted, and `complete_offset` stops before it, so the next
/// read starts there. A malformed line followed by more lines is skipped with a warning.
pub fn split_json_lines(bytes: &[u8]) -> SplitLines {
    let mut split = SplitLines::default();
    let mut line_start = 0usize;
    let mut line_number = 0u64;
    while line_start < bytes.len() {
        line_number += 1;
        let Some(newline_at) = bytes[line_start..].iter().position(|&byte| byte == b'\n') else {
            split.held_back = true;
            break;
        };
        let line_end = line_start + newline_at;
        let next_start = line_end + 1;
        let is_last_line = next_start >= bytes.len();
        let raw_line = trim_line(&bytes[line_start..line_end]);
        if !raw_line.is_empty() {
            match serde_json::from_slice::<Value>(raw_line) {
                Ok(value) => split.lines.push(JsonLine {
                    number: line_number,
                    value,
                }),
                Err(_) if is_last_line => {
                    split.held_back = true;
                    break;
                }
                Err(error) => split.malformed.push(ParseWarning {
                    line: line_number,
                    message: format!("malformed JSON line skipped: {error}"),
                }),
            }
        }
        line_start = next_start;
        split.complete_offset = next_start as u64;
    }
    split
}

/// Test helper: `values` as consecutive lines numbered from 1, as a parser receives them.
#[cfg(test)]
pub(crate) fn numbered_lines(values: &[Value]) -> Vec<JsonLine> {
    values
        .iter()
        .enumerate()
        .map(|(index, value)| JsonLine {
            number: index as u64 + 1,
            value: value.clone(),
        })
        .collect()
}

pub(crate) fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let start = line
        .iter()
        .position(|byte| !byte.is_ascii_whitespace())
        .unwrap_or(line.len());
    &line[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_back_a_line_without_newline() {
        let split = split_json_lines(b"{\"a\":1}\n{\"b\":");
        assert_eq!(split.lines.len(), 1);
        assert_eq!(split.complete_offset, 8);
        assert!(split.held_back);
        assert!(split.malformed.is_empty());
    }

    #[test]
    fn holds_back_an_invalid_last_line_even_with_newline() {
        let split = split_json_lines(b"{\"a\":1}\n{\"b\":\n");
        assert_eq!(split.lines.len(), 1);
        assert_eq!(split.complete_offset, 8);
        assert!(split.held_back);
    }

    #[test]
    fn skips_malformed_middle_lines_and_counts_them() {
        let split = split_json_lines(b"{\"a\":1}\nnot json\n\n{\"c\":3}\n");
        assert_eq!(split.lines.len(), 2);
        assert_eq!(split.lines[1].number, 4);
        assert_eq!(split.malformed.len(), 1);
        assert_eq!(split.malformed[0].line, 2);
        assert_eq!(split.complete_offset, 26);
        assert!(!split.held_back);
    }
}
