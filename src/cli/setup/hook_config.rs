//! Format-preserving edits of an agent's hook config (Claude Code's, Gemini CLI's, Factory
//! Droid's, CodeBuddy Code's and Qwen Code's `settings.json`, Codex's and Cursor's
//! `hooks.json`, Copilot CLI's `hooks/*.json`): the `hooks`
//! object maps an event name to an array of entries; esker's entries are the ones whose
//! command runs `esker recall --hook` ([`is_ours`]). Installing puts exactly one of ours in
//! each event's array and leaves every other entry (and comment) where it was; removing takes
//! out only ours. Pure: text in, text out.

use jsonc_parser::cst::{CstArray, CstObject};
use serde_json::Value;

use super::ConfigError;
use super::json_config::{input_value, parse, root_object};

/// The member holding the events.
const HOOKS: &str = "hooks";

/// What one agent's file gets.
#[derive(Debug, Clone, PartialEq)]
pub struct HookEntries {
    /// Members the file's root needs (Copilot's `"version": 1`), set only when absent.
    pub root_members: Vec<(&'static str, Value)>,
    /// Each event and the entry esker puts in its array.
    pub events: Vec<(&'static str, Value)>,
}

/// Whether an entry is esker's: some string in it runs `esker ... recall --hook`.
pub fn is_ours(entry: &Value) -> bool {
    match entry {
        Value::String(text) => text.contains("esker") && text.contains(" recall --hook "),
        Value::Array(items) => items.iter().any(is_ours),
        Value::Object(members) => members.values().any(is_ours),
        _ => false,
    }
}

/// The command esker's first entry runs (for a message telling a person what to add).
pub fn command_of(entries: &HookEntries) -> Option<String> {
    fn find(value: &Value) -> Option<&str> {
        match value {
            Value::String(text) if text.contains(" recall --hook ") => Some(text),
            Value::Array(items) => items.iter().find_map(find),
            Value::Object(members) => members.values().find_map(find),
            _ => None,
        }
    }
    entries
        .events
        .first()
        .and_then(|(_, entry)| find(entry))
        .map(str::to_owned)
}

/// `text` with esker's entries installed; the same text when they already are.
pub fn install(text: &str, entries: &HookEntries) -> Result<String, ConfigError> {
    let root = parse(text)?;
    let root_object = root_object(&root)?;
    let mut changed = false;
    for (name, value) in &entries.root_members {
        if root_object.get(name).is_none() {
            root_object.append(name, input_value(value));
            changed = true;
        }
    }
    let hooks = object_member(&root_object, HOOKS)?;
    for (event, wanted) in &entries.events {
        let array = array_member(&hooks, event)?;
        changed |= put_one(&array, wanted);
    }
    Ok(if changed {
        root.to_string()
    } else {
        text.to_owned()
    })
}

/// `text` without esker's entries (an event left empty by it, and then `hooks`, go too).
pub fn uninstall(text: &str) -> Result<String, ConfigError> {
    let root = parse(text)?;
    let root_object = root_object(&root)?;
    let Some(hooks) = root_object.object_value(HOOKS) else {
        return Ok(text.to_owned());
    };
    let mut changed = false;
    for property in hooks.properties() {
        let Some(array) = property.array_value() else {
            continue;
        };
        if remove_ours(&array) > 0 {
            changed = true;
            if array.elements().is_empty() {
                property.remove();
            }
        }
    }
    if !changed {
        return Ok(text.to_owned());
    }
    if hooks.properties().is_empty()
        && let Some(property) = root_object.get(HOOKS)
    {
        property.remove();
    }
    Ok(root.to_string())
}

/// Whether any of esker's entries is in `text`.
pub fn installed(text: &str) -> Result<bool, ConfigError> {
    let root = parse(text)?;
    let Some(hooks) = root_object(&root)?.object_value(HOOKS) else {
        return Ok(false);
    };
    Ok(hooks
        .properties()
        .iter()
        .filter_map(|property| property.array_value())
        .flat_map(|array| array.elements())
        .any(|element| {
            element
                .to_serde_value()
                .is_some_and(|value| is_ours(&value))
        }))
}

/// Whether `text` holds nothing once esker's entries are out (only root members esker sets).
pub fn only_root_members(text: &str, entries: &HookEntries) -> bool {
    let Ok(Value::Object(members)) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    members
        .keys()
        .all(|key| entries.root_members.iter().any(|(name, _)| name == key))
}

fn object_member(object: &CstObject, name: &str) -> Result<CstObject, ConfigError> {
    match object.get(name) {
        Some(property) => property
            .object_value()
            .ok_or_else(|| ConfigError::Shape(format!("`{name}` is not an object"))),
        None => Ok(object.object_value_or_set(name)),
    }
}

fn array_member(object: &CstObject, name: &str) -> Result<CstArray, ConfigError> {
    match object.get(name) {
        Some(property) => property
            .array_value()
            .ok_or_else(|| ConfigError::Shape(format!("`hooks.{name}` is not an array"))),
        None => Ok(object.array_value_or_set(name)),
    }
}

/// Leaves exactly `wanted` as esker's one entry of `array`; whether anything changed.
fn put_one(array: &CstArray, wanted: &Value) -> bool {
    let ours: Vec<Value> = array
        .elements()
        .iter()
        .filter_map(|element| element.to_serde_value())
        .filter(is_ours)
        .collect();
    if ours.len() == 1 && &ours[0] == wanted {
        return false;
    }
    remove_ours(array);
    array.append(input_value(wanted));
    true
}

/// Removes esker's entries from `array`; how many.
fn remove_ours(array: &CstArray) -> usize {
    let mut removed = 0;
    for element in array.elements() {
        if element
            .to_serde_value()
            .is_some_and(|value| is_ours(&value))
        {
            element.remove();
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claude_entries(command: &str) -> HookEntries {
        let group = json!({"hooks": [{"type": "command", "command": command, "timeout": 5}]});
        HookEntries {
            root_members: Vec::new(),
            events: vec![("UserPromptSubmit", group.clone()), ("SessionStart", group)],
        }
    }

    const SETTINGS: &str = r#"{
  // my settings
  "model": "opus",
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [{ "type": "command", "command": "~/bin/lint-prompt.sh" }]
      }
    ]
  }
}
"#;

    #[test]
    fn install_keeps_foreign_hooks_and_comments_and_is_idempotent() {
        let entries = claude_entries("/opt/bin/esker recall --hook claude-code");
        let installed_text = install(SETTINGS, &entries).unwrap();
        assert!(
            installed_text.contains("// my settings"),
            "{installed_text}"
        );
        assert!(installed_text.contains("lint-prompt.sh"));
        assert!(installed(&installed_text).unwrap());
        let value = parse(&installed_text).unwrap().to_serde_value().unwrap();
        assert_eq!(
            value["hooks"]["UserPromptSubmit"].as_array().unwrap().len(),
            2
        );
        assert_eq!(value["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
        assert_eq!(install(&installed_text, &entries).unwrap(), installed_text);
        let removed = uninstall(&installed_text).unwrap();
        assert!(!installed(&removed).unwrap());
        assert!(removed.contains("lint-prompt.sh") && removed.contains("// my settings"));
        assert!(!removed.contains("SessionStart"), "{removed}");
        assert_eq!(uninstall(&removed).unwrap(), removed);
    }

    #[test]
    fn a_new_command_replaces_ours_in_place_of_adding_a_second() {
        let first = install("", &claude_entries("/a/esker recall --hook claude-code")).unwrap();
        let second = install(
            &first,
            &claude_entries("/b/esker recall --hook claude-code"),
        )
        .unwrap();
        assert!(
            !second.contains("/a/esker") && second.contains("/b/esker"),
            "{second}"
        );
        let value: Value = serde_json::from_str(&second).unwrap();
        assert_eq!(value["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn an_empty_file_gets_everything_and_loses_it_all_again() {
        let entries = HookEntries {
            root_members: vec![("version", json!(1))],
            events: vec![(
                "sessionStart",
                json!({"type": "command", "bash": "esker recall --hook copilot", "timeoutSec": 5}),
            )],
        };
        let added = install("", &entries).unwrap();
        let value: Value = serde_json::from_str(&added).unwrap();
        assert_eq!(value["version"], 1);
        assert_eq!(value["hooks"]["sessionStart"][0]["timeoutSec"], 5);
        let removed = uninstall(&added).unwrap();
        assert!(only_root_members(&removed, &entries), "{removed}");
        assert!(!only_root_members(SETTINGS, &entries));
    }

    #[test]
    fn ours_is_recognised_by_the_recall_command_only() {
        assert!(is_ours(
            &json!({"hooks": [{"command": "/x/esker recall --hook codex"}]})
        ));
        assert!(is_ours(&json!({"bash": "uvx esker recall --hook copilot"})));
        assert!(!is_ours(&json!({"hooks": [{"command": "esker serve"}]})));
        assert!(!is_ours(
            &json!({"hooks": [{"command": "other recall --hook x"}]})
        ));
    }

    #[test]
    fn a_hooks_member_of_the_wrong_shape_is_an_error() {
        let entries = claude_entries("esker recall --hook claude-code");
        assert!(install(r#"{"hooks": []}"#, &entries).is_err());
        assert!(install(r#"{"hooks": {"SessionStart": {}}}"#, &entries).is_err());
        assert!(install("{", &entries).is_err());
    }
}
