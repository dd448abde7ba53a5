//! The additive `usage` object of sessions and turns: the five token sums of a row (or of the
//! directory), rendered as `{input_tokens, cached_input_tokens, output_tokens, reasoning_tokens,
//! total_tokens}`, or `null` when the harness recorded no usage.

use serde_json::{Value, json};

use crate::model::TokenUsage;
use crate::service::rows::{Row, RowError};

/// The token columns every table shares, in the order the object shows them.
pub const USAGE_COLUMNS: [&str; 5] = [
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "total_tokens",
];

/// The row's usage; `None` when every token column is null.
pub fn usage_of(row: &Row<'_>) -> Result<Option<TokenUsage>, RowError> {
    let [input, cached_input, output, reasoning, total] =
        USAGE_COLUMNS.map(|column| row.opt_i64(column));
    let usage = TokenUsage {
        input: input?,
        cached_input: cached_input?,
        output: output?,
        reasoning: reasoning?,
        total: total?,
    };
    Ok((usage != TokenUsage::default()).then_some(usage))
}

/// The `usage` object (or `null`).
pub fn usage_json(usage: Option<TokenUsage>) -> Value {
    match usage {
        Some(usage) => json!({
            "input_tokens": usage.input,
            "cached_input_tokens": usage.cached_input,
            "output_tokens": usage.output,
            "reasoning_tokens": usage.reasoning,
            "total_tokens": usage.total,
        }),
        None => Value::Null,
    }
}

/// The row's `usage` object (or `null`).
pub fn row_usage_json(row: &Row<'_>) -> Result<Value, RowError> {
    usage_of(row).map(usage_json)
}
