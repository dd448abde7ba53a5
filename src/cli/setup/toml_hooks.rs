//! Format-preserving edits of a TOML hook config made of `[[hooks]]` tables (Kimi Code's
//! `~/.kimi-code/config.toml`: `event`, `command`, `timeout`): esker's tables are the ones whose
//! command runs `esker recall --hook`. Installing leaves exactly esker's wanted tables and every
//! other key, table and comment as it was; removing takes out only esker's (and `hooks` once
//! empty). Pure: text in, text out.

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use super::ConfigError;

/// The array of tables holding the hooks.
const HOOKS: &str = "hooks";

/// One `[[hooks]]` table esker adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TomlHook {
    pub event: &'static str,
    pub command: String,
    /// Seconds.
    pub timeout: i64,
}

impl TomlHook {
    fn table(&self) -> Table {
        let mut table = Table::new();
        table.insert("event", value(self.event));
        table.insert("command", value(self.command.as_str()));
        table.insert("timeout", value(self.timeout));
        table
    }

    fn matches(&self, table: &Table) -> bool {
        table.len() == 3
            && table.get("event").and_then(Item::as_str) == Some(self.event)
            && table.get("command").and_then(Item::as_str) == Some(self.command.as_str())
            && table.get("timeout").and_then(Item::as_integer) == Some(self.timeout)
    }
}

/// Whether a `[[hooks]]` table is esker's.
fn is_ours(table: &Table) -> bool {
    table
        .get("command")
        .and_then(Item::as_str)
        .is_some_and(|command| command.contains("esker") && command.contains(" recall --hook "))
}

/// `text` with exactly `wanted` as esker's hooks; the same text when it already is.
pub fn install(text: &str, wanted: &[TomlHook]) -> Result<String, ConfigError> {
    let mut document = parse(text)?;
    let hooks = hooks_mut(&mut document)?;
    let ours: Vec<&Table> = hooks.iter().filter(|table| is_ours(table)).collect();
    let unchanged = ours.len() == wanted.len()
        && ours
            .iter()
            .zip(wanted)
            .all(|(table, hook)| hook.matches(table));
    if unchanged {
        return Ok(text.to_owned());
    }
    hooks.retain(|table| !is_ours(table));
    for hook in wanted {
        hooks.push(hook.table());
    }
    Ok(document.to_string())
}

/// `text` without esker's hooks (and without `hooks` once it is empty).
pub fn uninstall(text: &str) -> Result<String, ConfigError> {
    if !installed(text)? {
        return Ok(text.to_owned());
    }
    let mut document = parse(text)?;
    let hooks = hooks_mut(&mut document)?;
    hooks.retain(|table| !is_ours(table));
    if hooks.is_empty() {
        document.remove(HOOKS);
    }
    Ok(document.to_string())
}

/// Whether any of esker's hooks is in `text`.
pub fn installed(text: &str) -> Result<bool, ConfigError> {
    let document = parse(text)?;
    Ok(match document.get(HOOKS) {
        None => false,
        Some(item) => item
            .as_array_of_tables()
            .ok_or_else(not_tables)?
            .iter()
            .any(is_ours),
    })
}

fn parse(text: &str) -> Result<DocumentMut, ConfigError> {
    text.parse::<DocumentMut>()
        .map_err(|error| ConfigError::Parse(error.to_string()))
}

fn hooks_mut(document: &mut DocumentMut) -> Result<&mut ArrayOfTables, ConfigError> {
    document
        .entry(HOOKS)
        .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or_else(not_tables)
}

fn not_tables() -> ConfigError {
    ConfigError::Shape(format!("`{HOOKS}` is not an array of [[{HOOKS}]] tables"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted(command: &str) -> Vec<TomlHook> {
        vec![TomlHook {
            event: "UserPromptSubmit",
            command: command.to_owned(),
            timeout: 5,
        }]
    }

    const KIMI: &str = "# my kimi config\ndefault_model = \"kimi-k2\" # fast\n\n[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Bash\"\ncommand = \"node ~/.kimi-code/hooks/check.mjs\"\ntimeout = 5\n\n[mcp.servers.fetch]\ncommand = \"uvx\"\n";

    #[test]
    fn install_keeps_the_users_hooks_and_comments_and_is_idempotent() {
        let hooks = wanted("/opt/bin/esker recall --hook kimi");
        let added = install(KIMI, &hooks).unwrap();
        assert!(added.starts_with("# my kimi config\ndefault_model = \"kimi-k2\" # fast\n"));
        assert!(added.contains("command = \"node ~/.kimi-code/hooks/check.mjs\""));
        assert!(added.contains(
            "[[hooks]]\nevent = \"UserPromptSubmit\"\ncommand = \"/opt/bin/esker recall --hook kimi\"\ntimeout = 5\n"
        ));
        assert!(added.contains("[mcp.servers.fetch]"));
        assert!(installed(&added).unwrap());
        assert_eq!(install(&added, &hooks).unwrap(), added);
        let removed = uninstall(&added).unwrap();
        assert_eq!(removed, KIMI);
        assert_eq!(uninstall(&removed).unwrap(), removed);
    }

    #[test]
    fn a_new_command_replaces_ours_and_an_empty_file_loses_hooks_again() {
        let first = install("", &wanted("/a/esker recall --hook kimi")).unwrap();
        let second = install(&first, &wanted("/b/esker recall --hook kimi")).unwrap();
        assert!(
            !second.contains("/a/esker") && second.contains("/b/esker"),
            "{second}"
        );
        assert_eq!(second.matches("[[hooks]]").count(), 1);
        assert_eq!(uninstall(&second).unwrap().trim(), "");
    }

    #[test]
    fn hooks_of_another_shape_are_an_error() {
        let hooks = wanted("esker recall --hook kimi");
        assert!(install("hooks = 3\n", &hooks).is_err());
        assert!(install("[hooks]\nevent = \"Stop\"\n", &hooks).is_err());
        assert!(install("hooks = [\n", &hooks).is_err());
        assert!(installed("hooks = \"x\"\n").is_err());
    }
}
