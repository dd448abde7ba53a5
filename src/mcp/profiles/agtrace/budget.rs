//! Fitting turns into a response's size budget (get_session_details): turns are added whole
//! while they fit; a turn whose steps do not all fit is cut at a step boundary and marked
//! (`steps_truncated`, `next_step_index`), and the next page resumes there. Only a single step
//! that alone exceeds the budget has its longest strings cut, marked `truncated: true`.

use serde_json::{Map, Value};

/// Appended to a string cut to fit the budget.
pub const CUT_MARK: &str = "...(truncated; use get_event_details for the full payload)";
/// Strings are never cut below this many characters.
const MIN_CUT_CHARS: usize = 64;

/// One turn before packing: its fields and, at levels with steps, its steps.
#[derive(Debug, Clone)]
pub struct TurnPiece {
    pub turn_index: i64,
    pub fields: Map<String, Value>,
    pub steps: Option<Vec<Value>>,
}

/// Where the next page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    pub turn_index: i64,
    pub step_index: usize,
}

/// The turns that fit, and where to resume when some did not.
#[derive(Debug, Clone, PartialEq)]
pub struct Packed {
    pub turns: Vec<Value>,
    pub resume: Option<Resume>,
    /// Bytes of the budget used, those used before packing included.
    pub used: usize,
}

fn size_of(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |text| text.len())
}

/// Packs `pieces` (in order) into `budget` bytes of JSON of which `used_before` are taken by
/// turns packed earlier, the first piece resuming at `first_step`.
pub fn pack(
    pieces: Vec<TurnPiece>,
    first_step: usize,
    budget: usize,
    used_before: usize,
) -> Packed {
    let mut turns: Vec<Value> = Vec::new();
    let mut used = used_before;
    let has_earlier_turns = used_before > 0;
    for (position, piece) in pieces.into_iter().enumerate() {
        let start = if position == 0 { first_step } else { 0 };
        let resume_here = Resume {
            turn_index: piece.turn_index,
            step_index: start,
        };
        let mut fields = piece.fields;
        let Some(steps) = piece.steps else {
            let mut turn = Value::Object(fields);
            let mut size = size_of(&turn) + 1;
            if used + size > budget {
                if has_earlier_turns || !turns.is_empty() {
                    return Packed {
                        turns,
                        resume: Some(resume_here),
                        used,
                    };
                }
                turn = shrink(turn, budget.saturating_sub(used));
                size = size_of(&turn) + 1;
            }
            used += size;
            turns.push(turn);
            continue;
        };
        if start > 0 {
            fields.insert("first_step_index".into(), start.into());
        }
        // Room for the steps array and the markers of a cut turn.
        let markers = r#","steps":[],"steps_truncated":true,"next_step_index":100000"#.len();
        let mut header_size = size_of(&Value::Object(fields.clone())) + markers + 1;
        if used + header_size > budget {
            if has_earlier_turns || !turns.is_empty() {
                return Packed {
                    turns,
                    resume: Some(resume_here),
                    used,
                };
            }
            fields = match shrink(Value::Object(fields), budget / 2) {
                Value::Object(fields) => fields,
                _ => Map::new(),
            };
            header_size = size_of(&Value::Object(fields.clone())) + markers + 1;
        }
        used += header_size;
        let mut kept = Vec::new();
        let step_count = steps.len();
        for (step_index, step) in steps.into_iter().enumerate().skip(start) {
            let mut step = step;
            let mut size = size_of(&step) + 1;
            if used + size > budget {
                let resume = Some(Resume {
                    turn_index: resume_here.turn_index,
                    step_index,
                });
                if kept.is_empty() && (has_earlier_turns || !turns.is_empty()) {
                    return Packed {
                        turns,
                        resume,
                        used,
                    };
                }
                if !kept.is_empty() {
                    fields.insert("steps".into(), Value::Array(kept));
                    fields.insert("steps_truncated".into(), true.into());
                    fields.insert("next_step_index".into(), step_index.into());
                    turns.push(Value::Object(fields));
                    return Packed {
                        turns,
                        resume,
                        used,
                    };
                }
                step = shrink(step, budget.saturating_sub(used));
                size = size_of(&step) + 1;
            }
            used += size;
            kept.push(step);
        }
        debug_assert!(kept.len() <= step_count);
        fields.insert("steps".into(), Value::Array(kept));
        turns.push(Value::Object(fields));
    }
    Packed {
        turns,
        resume: None,
        used,
    }
}

/// `value` with its longest strings cut (never below [`MIN_CUT_CHARS`]) until its JSON fits
/// `max_bytes` or nothing more can be cut; marked `truncated: true` when anything was cut.
pub fn shrink(mut value: Value, max_bytes: usize) -> Value {
    let mut cut_any = false;
    while size_of(&value) > max_bytes {
        let Some(longest) = longest_string(&mut value) else {
            break;
        };
        let kept_text = longest.strip_suffix(CUT_MARK).unwrap_or(longest);
        let chars = kept_text.chars().count();
        if chars <= MIN_CUT_CHARS {
            break;
        }
        let keep = (chars / 2).max(MIN_CUT_CHARS);
        let mut cut: String = kept_text.chars().take(keep).collect();
        cut.push_str(CUT_MARK);
        *longest = cut;
        cut_any = true;
    }
    if cut_any && let Value::Object(fields) = &mut value {
        fields.insert("truncated".into(), true.into());
    }
    value
}

/// The longest string in `value`.
fn longest_string(value: &mut Value) -> Option<&mut String> {
    match value {
        Value::String(text) => Some(text),
        Value::Array(items) => items
            .iter_mut()
            .filter_map(longest_string)
            .max_by_key(|text| text.len()),
        Value::Object(fields) => fields
            .values_mut()
            .filter_map(longest_string)
            .max_by_key(|text| text.len()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn piece(turn_index: i64, steps: usize, step_bytes: usize) -> TurnPiece {
        let fields = json!({"turn_index": turn_index})
            .as_object()
            .unwrap()
            .clone();
        let steps = (0..steps)
            .map(|index| json!({"step_index": index, "text": "x".repeat(step_bytes)}))
            .collect();
        TurnPiece {
            turn_index,
            fields,
            steps: Some(steps),
        }
    }

    #[test]
    fn whole_turns_fit_and_the_rest_resumes_later() {
        let packed = pack(vec![piece(0, 2, 100), piece(1, 2, 100)], 0, 10_000, 0);
        assert_eq!(packed.turns.len(), 2);
        assert_eq!(packed.resume, None);
        let packed = pack(vec![piece(0, 2, 100), piece(1, 2, 1000)], 0, 1_000, 0);
        assert_eq!(packed.turns.len(), 1);
        assert_eq!(
            packed.resume,
            Some(Resume {
                turn_index: 1,
                step_index: 0
            })
        );
    }

    #[test]
    fn a_long_turn_is_cut_between_steps() {
        let packed = pack(vec![piece(3, 10, 100)], 2, 700, 0);
        let turn = &packed.turns[0];
        assert_eq!(turn["first_step_index"], 2);
        assert_eq!(turn["steps_truncated"], true);
        let next = turn["next_step_index"].as_u64().unwrap() as usize;
        assert!(next > 2 && next < 10);
        assert_eq!(
            packed.resume,
            Some(Resume {
                turn_index: 3,
                step_index: next
            })
        );
        assert!(size_of(&Value::Array(packed.turns.clone())) <= 700);
    }

    #[test]
    fn a_step_alone_over_budget_is_cut_and_marked() {
        let packed = pack(vec![piece(0, 1, 50_000)], 0, 5_000, 0);
        let step = &packed.turns[0]["steps"][0];
        assert_eq!(step["truncated"], true);
        assert!(step["text"].as_str().unwrap().ends_with(CUT_MARK));
        assert!(size_of(&Value::Array(packed.turns.clone())) <= 5_000);
    }
}
