//! Tool arguments of the memory profile as typed requests. Lenient where the seed is: unknown
//! fields are ignored and `null` means absent; strict about types: a field of the wrong type
//! is `INVALID_ARGUMENT` naming it. Defaults, clamps and limits are the service's.

use serde_json::{Map, Value};

use crate::memory::MemoryError;
use crate::memory::entry::Draft;
use crate::memory::ingest_docs::IngestRequest;
use crate::memory::retention::RetentionRequest;
use crate::memory::service::{SearchRequest, TimelineRequest};
use crate::service::validate::Arguments;

fn present<'a>(arguments: &'a Arguments, name: &str) -> Option<&'a Value> {
    arguments.get(name).filter(|value| !value.is_null())
}

fn string(arguments: &Arguments, name: &str) -> Result<Option<String>, MemoryError> {
    match present(arguments, name) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(MemoryError::invalid(
            name,
            format!("{name} must be a string"),
        )),
    }
}

fn required_string(arguments: &Arguments, name: &str) -> Result<String, MemoryError> {
    string(arguments, name)?
        .ok_or_else(|| MemoryError::invalid(name, format!("{name} is required")))
}

/// An integer (`3` or `3.0`; not `2.5`, not `"3"`).
fn integer(arguments: &Arguments, name: &str) -> Result<Option<i64>, MemoryError> {
    let Some(value) = present(arguments, name) else {
        return Ok(None);
    };
    let integral = value.as_i64().or_else(|| {
        value
            .as_f64()
            .filter(|number| number.fract() == 0.0 && number.abs() < 9.0e15)
            .map(|number| number as i64)
    });
    integral
        .map(Some)
        .ok_or_else(|| MemoryError::invalid(name, format!("{name} must be an integer")))
}

fn number(arguments: &Arguments, name: &str) -> Result<Option<f64>, MemoryError> {
    match present(arguments, name) {
        None => Ok(None),
        Some(value) => value
            .as_f64()
            .map(Some)
            .ok_or_else(|| MemoryError::invalid(name, format!("{name} must be a number"))),
    }
}

fn object(arguments: &Arguments, name: &str) -> Result<Option<Map<String, Value>>, MemoryError> {
    match present(arguments, name) {
        None => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map.clone())),
        Some(_) => Err(MemoryError::invalid(
            name,
            format!("{name} must be an object"),
        )),
    }
}

fn strings(arguments: &Arguments, name: &str) -> Result<Option<Vec<String>>, MemoryError> {
    let Some(value) = present(arguments, name) else {
        return Ok(None);
    };
    let not_strings = || MemoryError::invalid(name, format!("{name} must be an array of strings"));
    let items = value.as_array().ok_or_else(not_strings)?;
    items
        .iter()
        .map(|item| item.as_str().map(str::to_owned).ok_or_else(not_strings))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

pub fn save(arguments: &Arguments) -> Result<Draft, MemoryError> {
    Ok(Draft {
        text: required_string(arguments, "text")?,
        title: string(arguments, "title")?,
        project: string(arguments, "project")?,
        entry_type: string(arguments, "type")?,
        source_ref: string(arguments, "source_ref")?,
        session_id: string(arguments, "session_id")?,
        metadata: object(arguments, "metadata")?,
    })
}

pub fn search(arguments: &Arguments) -> Result<SearchRequest, MemoryError> {
    Ok(SearchRequest {
        query: required_string(arguments, "query")?,
        project: string(arguments, "project")?,
        entry_type: string(arguments, "type")?,
        limit: integer(arguments, "limit")?,
        offset: integer(arguments, "offset")?,
    })
}

pub fn timeline(arguments: &Arguments) -> Result<TimelineRequest, MemoryError> {
    Ok(TimelineRequest {
        anchor_id: required_string(arguments, "anchor_id")?,
        depth_before: integer(arguments, "depth_before")?,
        depth_after: integer(arguments, "depth_after")?,
    })
}

pub fn ids(arguments: &Arguments) -> Result<Vec<String>, MemoryError> {
    strings(arguments, "ids")?.ok_or_else(|| MemoryError::invalid("ids", "ids is required"))
}

pub fn ingest(arguments: &Arguments) -> Result<IngestRequest, MemoryError> {
    Ok(IngestRequest {
        project: string(arguments, "project")?,
        sources: strings(arguments, "sources")?,
        entry_type: string(arguments, "entry_type")?,
    })
}

pub fn retention(arguments: &Arguments) -> Result<RetentionRequest, MemoryError> {
    Ok(RetentionRequest {
        now: string(arguments, "now")?,
        max_age_days: number(arguments, "max_age_days")?,
        max_entries_per_project: integer(arguments, "max_entries_per_project")?,
        project: string(arguments, "project")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn arguments(value: Value) -> Arguments {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn unknown_fields_are_ignored_and_null_is_absent() {
        let draft = save(&arguments(json!({
            "text": "note", "title": null, "future_field": {"x": 1},
        })))
        .unwrap();
        assert_eq!(draft.text, "note");
        assert_eq!(draft.title, None);
    }

    #[test]
    fn wrong_types_name_the_field() {
        let error = search(&arguments(json!({"query": "q", "limit": "5"}))).unwrap_err();
        assert_eq!(error.details["field"], "limit");
        let error = search(&arguments(json!({"query": "q", "limit": 2.5}))).unwrap_err();
        assert_eq!(error.message, "limit must be an integer");
        assert_eq!(
            search(&arguments(json!({"query": "q", "limit": 5.0})))
                .unwrap()
                .limit,
            Some(5)
        );
        let error = ids(&arguments(json!({"ids": ["a", 1]}))).unwrap_err();
        assert_eq!(error.details["field"], "ids");
        let error = save(&arguments(json!({"text": "t", "metadata": [1]}))).unwrap_err();
        assert_eq!(error.details["field"], "metadata");
        assert_eq!(
            save(&arguments(json!({}))).unwrap_err().message,
            "text is required"
        );
    }
}
