//! Format-preserving edits of a TOML client config (Codex's `config.toml`): adds, updates or
//! removes one `[<container>.<name>]` server table and keeps every other key, comment and the
//! order of everything else (`toml_edit`). Pure: text in, text out.

use toml_edit::{Array, DocumentMut, Item, Table, TableLike, value};

use super::{ConfigError, Server};

/// `text` with server `name` registered as `server`; the same text when it already is. Keys
/// the user added to an existing entry (env, timeouts) are kept.
pub fn upsert(
    text: &str,
    container: &str,
    name: &str,
    server: &Server,
) -> Result<String, ConfigError> {
    let mut document = parse(text)?;
    let servers = servers_table(&mut document, container)?;
    if let Some(existing) = servers.get(name).and_then(Item::as_table_like)
        && is_registered_as(existing, server)
    {
        return Ok(text.to_owned());
    }
    match servers.get_mut(name).and_then(Item::as_table_like_mut) {
        Some(existing) => write_server(existing, server),
        None => {
            let mut entry = Table::new();
            write_server(&mut entry, server);
            servers.insert(name, Item::Table(entry));
        }
    }
    Ok(document.to_string())
}

/// `text` without server `name` (and without the container once it is empty).
pub fn remove(text: &str, container: &str, name: &str) -> Result<String, ConfigError> {
    let mut document = parse(text)?;
    let Some(servers) = document
        .get_mut(container)
        .and_then(Item::as_table_like_mut)
    else {
        return Ok(text.to_owned());
    };
    if servers.remove(name).is_none() {
        return Ok(text.to_owned());
    }
    if servers.is_empty() {
        document.remove(container);
    }
    Ok(document.to_string())
}

/// The command and arguments server `name` is registered with, if it is.
pub fn registered_server(
    text: &str,
    container: &str,
    name: &str,
) -> Result<Option<Server>, ConfigError> {
    let document = parse(text)?;
    let Some(entry) = document
        .get(container)
        .and_then(Item::as_table_like)
        .and_then(|servers| servers.get(name))
        .and_then(Item::as_table_like)
    else {
        return Ok(None);
    };
    let command = entry
        .get("command")
        .and_then(Item::as_str)
        .unwrap_or_default();
    let args = entry
        .get("args")
        .and_then(Item::as_array)
        .map(|args| {
            args.iter()
                .filter_map(|arg| arg.as_str())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    Ok(Some(Server {
        command: command.to_owned(),
        args,
    }))
}

fn parse(text: &str) -> Result<DocumentMut, ConfigError> {
    text.parse::<DocumentMut>()
        .map_err(|error| ConfigError::Parse(error.to_string()))
}

fn servers_table<'a>(
    document: &'a mut DocumentMut,
    container: &str,
) -> Result<&'a mut dyn TableLike, ConfigError> {
    let item = document.entry(container).or_insert_with(|| {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    });
    item.as_table_like_mut()
        .ok_or_else(|| ConfigError::Shape(format!("`{container}` is not a table")))
}

fn is_registered_as(entry: &dyn TableLike, server: &Server) -> bool {
    let command = entry.get("command").and_then(Item::as_str);
    let args: Option<Vec<&str>> = entry
        .get("args")
        .and_then(Item::as_array)
        .map(|args| args.iter().filter_map(|arg| arg.as_str()).collect());
    command == Some(server.command.as_str())
        && args
            .is_some_and(|args| args == server.args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn write_server(entry: &mut dyn TableLike, server: &Server) {
    entry.insert("command", value(server.command.as_str()));
    let args: Array = server.args.iter().map(String::as_str).collect();
    entry.insert("args", value(args));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Server {
        Server {
            command: "/usr/bin/esker".into(),
            args: vec!["serve".into()],
        }
    }

    const CODEX: &str = "# my codex settings\nmodel = \"o3\" # favourite\n\n[mcp_servers.other]\ncommand = \"other\"\nargs = []\n\n[profiles.fast]\nmodel = \"mini\"\n";

    #[test]
    fn adding_keeps_comments_and_other_servers_and_is_idempotent() {
        let added = upsert(CODEX, "mcp_servers", "esker", &server()).unwrap();
        assert!(added.starts_with("# my codex settings\nmodel = \"o3\" # favourite\n"));
        assert!(added.contains("[mcp_servers.other]\ncommand = \"other\""));
        assert!(
            added.contains("[mcp_servers.esker]\ncommand = \"/usr/bin/esker\"\nargs = [\"serve\"]")
        );
        assert!(added.contains("[profiles.fast]"));
        assert_eq!(
            upsert(&added, "mcp_servers", "esker", &server()).unwrap(),
            added
        );
        assert_eq!(
            registered_server(&added, "mcp_servers", "esker").unwrap(),
            Some(server())
        );
        let removed = remove(&added, "mcp_servers", "esker").unwrap();
        assert_eq!(
            registered_server(&removed, "mcp_servers", "esker").unwrap(),
            None
        );
        assert!(removed.contains("[mcp_servers.other]"));
    }

    #[test]
    fn an_empty_file_gets_a_server_table() {
        let added = upsert("", "mcp_servers", "esker", &server()).unwrap();
        assert_eq!(
            added,
            "[mcp_servers.esker]\ncommand = \"/usr/bin/esker\"\nargs = [\"serve\"]\n"
        );
        assert_eq!(remove(&added, "mcp_servers", "esker").unwrap(), "");
    }

    #[test]
    fn a_broken_file_is_an_error_not_a_rewrite() {
        assert!(upsert("model = \n", "mcp_servers", "esker", &server()).is_err());
        assert!(upsert("mcp_servers = 3\n", "mcp_servers", "esker", &server()).is_err());
    }
}
