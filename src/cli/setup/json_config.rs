//! Format-preserving edits of a JSON client config (Claude Code's `~/.claude.json`, Gemini
//! CLI's and Qwen Code's `settings.json`, which allow comments, Cursor's and Copilot CLI's
//! `mcp.json`, OpenCode's `opencode.json`): adds, updates or removes one member of the servers
//! object through a concrete syntax tree (`jsonc-parser`), so comments, whitespace and key
//! order of everything else stay as they were. Pure: text in, text out.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::Value;

use super::ConfigError;

/// `text` with `entry` registered as server `name` in the `container` object; the same text
/// when it already is. Members the user added to an existing entry are kept.
pub fn upsert(
    text: &str,
    container: &str,
    name: &str,
    entry: &Value,
) -> Result<String, ConfigError> {
    let root = parse(text)?;
    let root_object = root_object(&root)?;
    let servers = match root_object.get(container) {
        Some(property) => property
            .object_value()
            .ok_or_else(|| ConfigError::Shape(format!("`{container}` is not an object")))?,
        None => root_object.object_value_or_set(container),
    };
    let changed = match servers.get(name) {
        Some(existing) => {
            let existing = existing.object_value().ok_or_else(|| {
                ConfigError::Shape(format!("`{container}.{name}` is not an object"))
            })?;
            merge_members(&existing, entry)
        }
        None => {
            servers.append(name, input_value(entry));
            true
        }
    };
    Ok(if changed {
        root.to_string()
    } else {
        text.to_owned()
    })
}

/// `text` without server `name` (and without the container once it is empty).
pub fn remove(text: &str, container: &str, name: &str) -> Result<String, ConfigError> {
    let root = parse(text)?;
    let Some(servers) = root_object(&root)?.object_value(container) else {
        return Ok(text.to_owned());
    };
    let Some(server) = servers.get(name) else {
        return Ok(text.to_owned());
    };
    server.remove();
    if servers.properties().is_empty()
        && let Some(container_property) = root_object(&root)?.get(container)
    {
        container_property.remove();
    }
    Ok(root.to_string())
}

/// The registered entry of server `name`, if any.
pub fn server_entry(text: &str, container: &str, name: &str) -> Result<Option<Value>, ConfigError> {
    let root = parse(text)?;
    Ok(root_object(&root)?
        .object_value(container)
        .and_then(|servers| servers.get(name))
        .and_then(|server| server.value())
        .and_then(|value| value.to_serde_value()))
}

pub(super) fn parse(text: &str) -> Result<CstRootNode, ConfigError> {
    let source = if text.trim().is_empty() { "{}\n" } else { text };
    CstRootNode::parse(source, &ParseOptions::default())
        .map_err(|error| ConfigError::Parse(error.to_string()))
}

pub(super) fn root_object(root: &CstRootNode) -> Result<CstObject, ConfigError> {
    match root.value() {
        None => Ok(root.object_value_or_set()),
        Some(_) => root
            .object_value()
            .ok_or_else(|| ConfigError::Shape("the file is not a JSON object".to_owned())),
    }
}

/// Sets each member of `entry` on `existing` where it differs; whether anything changed.
fn merge_members(existing: &CstObject, entry: &Value) -> bool {
    let mut changed = false;
    for (key, wanted) in entry.as_object().into_iter().flatten() {
        match existing.get(key) {
            Some(property) => {
                let current = property.value().and_then(|value| value.to_serde_value());
                if current.as_ref() != Some(wanted) {
                    property.set_value(input_value(wanted));
                    changed = true;
                }
            }
            None => {
                existing.append(key, input_value(wanted));
                changed = true;
            }
        }
    }
    changed
}

pub(super) fn input_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(flag) => CstInputValue::Bool(*flag),
        Value::Number(number) => CstInputValue::Number(number.to_string()),
        Value::String(text) => CstInputValue::String(text.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input_value).collect()),
        Value::Object(members) => CstInputValue::Object(
            members
                .iter()
                .map(|(key, member)| (key.clone(), input_value(member)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const GEMINI: &str = "{\n  // my theme\n  \"theme\": \"GitHub\",\n  \"mcpServers\": {\n    \"other\": { \"command\": \"other\" }\n  },\n  \"zeta\": 1\n}\n";

    fn entry() -> Value {
        json!({"command": "/usr/bin/esker", "args": ["serve"]})
    }

    #[test]
    fn adding_keeps_comments_order_and_other_servers_and_is_idempotent() {
        let added = upsert(GEMINI, "mcpServers", "esker", &entry()).unwrap();
        assert!(added.contains("// my theme"), "{added}");
        assert!(
            added.contains("\"other\": { \"command\": \"other\" }"),
            "{added}"
        );
        let theme = added.find("\"theme\"").unwrap();
        let servers = added.find("\"mcpServers\"").unwrap();
        let zeta = added.find("\"zeta\"").unwrap();
        assert!(theme < servers && servers < zeta);
        assert_eq!(
            server_entry(&added, "mcpServers", "esker").unwrap(),
            Some(entry())
        );
        assert_eq!(
            upsert(&added, "mcpServers", "esker", &entry()).unwrap(),
            added
        );
        let removed = remove(&added, "mcpServers", "esker").unwrap();
        assert_eq!(server_entry(&removed, "mcpServers", "esker").unwrap(), None);
        assert!(removed.contains("\"other\""));
    }

    #[test]
    fn an_empty_or_missing_file_gets_the_container() {
        let added = upsert("", "mcpServers", "esker", &entry()).unwrap();
        let parsed: Value = serde_json::from_str(&added).unwrap();
        assert_eq!(parsed["mcpServers"]["esker"], entry());
    }

    #[test]
    fn user_keys_of_an_existing_entry_survive_an_update() {
        let text = "{\"mcpServers\": {\"esker\": {\"command\": \"old\", \"env\": {\"A\": \"1\"}}}}";
        let updated = upsert(text, "mcpServers", "esker", &entry()).unwrap();
        let parsed: Value = serde_json::from_str(&updated).unwrap();
        assert_eq!(parsed["mcpServers"]["esker"]["env"], json!({"A": "1"}));
        assert_eq!(parsed["mcpServers"]["esker"]["command"], "/usr/bin/esker");
    }

    #[test]
    fn a_file_that_is_not_an_object_is_an_error() {
        assert!(upsert("[1, 2]", "mcpServers", "esker", &entry()).is_err());
        assert!(upsert("{\"mcpServers\": 3}", "mcpServers", "esker", &entry()).is_err());
        assert!(upsert("{\"a\": ", "mcpServers", "esker", &entry()).is_err());
    }
}
