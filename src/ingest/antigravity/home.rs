//! A product home's shared indexes, read once per pass: the CLI's `history.jsonl` (prompts with
//! their `workspace` and `conversationId`) and `cache/last_conversations.json` (cwd → latest
//! conversation), the app's `agyhub_summaries_proto.pb` (per conversation `{1: id, 2: {1: title,
//! 9: {1: workspace URI}}}`), and the per-conversation `annotations/<uuid>.pbtxt` (`title:"…"`).

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{ConversationMeta, Product};
use crate::ingest::protowire::{self, all_bytes, message, text};

/// Largest index file read (they are a few KB; a bigger one is not what it seems).
const MAX_INDEX_BYTES: u64 = 64 << 20;

/// What a home's shared files say about its conversations.
#[derive(Debug, Clone, Default)]
pub struct HomeIndex {
    pub product: Option<Product>,
    titles: HashMap<String, String>,
    cwds: HashMap<String, String>,
}

impl HomeIndex {
    /// Reads the indexes of `home` (missing or unreadable ones are skipped).
    pub fn load(home: &Path) -> HomeIndex {
        let mut index = HomeIndex {
            product: product_of_home(home),
            ..HomeIndex::default()
        };
        index.read_summaries(&home.join("agyhub_summaries_proto.pb"));
        index.read_last_conversations(&home.join("cache").join("last_conversations.json"));
        let history = home.join("history.jsonl");
        if index.product.is_none() && history.is_file() {
            // Only the CLI keeps a prompt history.
            index.product = Some(Product::Cli);
        }
        index.read_history(&history);
        index
    }

    /// The facts about conversation `id`, with the title of its annotation when it has one.
    pub fn meta_of(&self, home: &Path, id: &str) -> ConversationMeta {
        let annotation = home.join("annotations").join(format!("{id}.pbtxt"));
        ConversationMeta {
            title: annotation_title(&annotation).or_else(|| self.titles.get(id).cloned()),
            cwd: self.cwds.get(id).cloned(),
            product: self.product,
        }
    }

    fn read_summaries(&mut self, path: &Path) {
        let Some(bytes) = read_small(path) else {
            return;
        };
        let Some(root) = protowire::fields(&bytes) else {
            return;
        };
        for entry in all_bytes(&root, 1) {
            let Some(entry) = protowire::fields(entry) else {
                continue;
            };
            let (Some(id), Some(summary)) = (text(&entry, 1), message(&entry, 2)) else {
                continue;
            };
            if let Some(title) = text(&summary, 1) {
                self.titles.insert(id.clone(), title);
            }
            if let Some(uri) = message(&summary, 9).and_then(|workspace| text(&workspace, 1)) {
                self.cwds.insert(id, path_of_file_uri(&uri));
            }
        }
    }

    fn read_last_conversations(&mut self, path: &Path) {
        let Some(bytes) = read_small(path) else {
            return;
        };
        let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(&bytes) else {
            return;
        };
        for (cwd, id) in map {
            if let Some(id) = id.as_str() {
                self.cwds.entry(id.to_string()).or_insert(cwd);
            }
        }
    }

    /// Prompt rows carry their `workspace`; the latest row of a conversation wins.
    fn read_history(&mut self, path: &Path) {
        let Some(bytes) = read_small(path) else {
            return;
        };
        for line in bytes.split(|byte| *byte == b'\n') {
            let Ok(row) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            let id = row.get("conversationId").and_then(Value::as_str);
            let workspace = row.get("workspace").and_then(Value::as_str);
            if let (Some(id), Some(workspace)) = (id, workspace) {
                self.cwds.insert(id.to_string(), workspace.to_string());
            }
        }
    }
}

/// The product a home's directory name says: `antigravity-cli`, `antigravity` (the 2.0 app),
/// `antigravity-ide` or `antigravity-backup` (the IDE).
pub fn product_of_home(home: &Path) -> Option<Product> {
    match home.file_name()?.to_str()? {
        "antigravity-cli" => Some(Product::Cli),
        "antigravity" => Some(Product::App),
        "antigravity-ide" | "antigravity-backup" => Some(Product::Ide),
        _ => None,
    }
}

fn read_small(path: &Path) -> Option<Vec<u8>> {
    let metadata = fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_INDEX_BYTES {
        return None;
    }
    fs::read(path).ok()
}

/// `title:"…"` of an annotation (protobuf text format).
pub fn annotation_title(path: &Path) -> Option<String> {
    let bytes = read_small(path)?;
    let text = String::from_utf8_lossy(&bytes);
    let start = text.find("title:")? + "title:".len();
    let quoted = text[start..].trim_start().strip_prefix('"')?;
    let title = unescape_text_format(quoted)?;
    let title = title.trim();
    (!title.is_empty()).then(|| title.to_string())
}

/// A protobuf text-format string body up to its closing quote, unescaped (`\"`, `\\`, `\n`,
/// `\t`, octal `\NNN` and hex `\xNN` bytes, which encode UTF-8).
fn unescape_text_format(body: &str) -> Option<String> {
    let mut bytes = Vec::new();
    let mut chars = body.bytes().peekable();
    while let Some(byte) = chars.next() {
        match byte {
            b'"' => return Some(String::from_utf8_lossy(&bytes).into_owned()),
            b'\\' => match chars.next()? {
                b'n' => bytes.push(b'\n'),
                b't' => bytes.push(b'\t'),
                b'r' => bytes.push(b'\r'),
                b'x' => {
                    let mut value = 0u8;
                    for _ in 0..2 {
                        match chars.peek().and_then(|digit| (*digit as char).to_digit(16)) {
                            Some(digit) => {
                                value = value.wrapping_mul(16).wrapping_add(digit as u8);
                                chars.next();
                            }
                            None => break,
                        }
                    }
                    bytes.push(value);
                }
                digit @ b'0'..=b'7' => {
                    let mut value = digit - b'0';
                    for _ in 0..2 {
                        match chars.peek() {
                            Some(next @ b'0'..=b'7') => {
                                value = value.wrapping_mul(8).wrapping_add(next - b'0');
                                chars.next();
                            }
                            _ => break,
                        }
                    }
                    bytes.push(value);
                }
                other => bytes.push(other),
            },
            other => bytes.push(other),
        }
    }
    None
}

/// A `file://` URI as a path: percent-decoded, a Windows drive without the leading slash
/// (`file:///c:/Users/me/My%20App` → `c:/Users/me/My App`).
pub fn path_of_file_uri(uri: &str) -> String {
    let Some(rest) = uri.strip_prefix("file://") else {
        return uri.to_string();
    };
    let decoded = percent_encoding::percent_decode_str(rest)
        .decode_utf8_lossy()
        .into_owned();
    let bytes = decoded.as_bytes();
    let windows_drive =
        bytes.len() >= 3 && bytes[0] == b'/' && bytes[1].is_ascii_alphabetic() && bytes[2] == b':';
    if windows_drive {
        decoded[1..].to_string()
    } else {
        decoded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_titles_and_home_names() {
        assert_eq!(
            path_of_file_uri("file:///c:/Users/NETCOM/Desktop/Vibe%20Coding"),
            "c:/Users/NETCOM/Desktop/Vibe Coding"
        );
        assert_eq!(path_of_file_uri("file:///home/dev/app"), "/home/dev/app");
        assert_eq!(
            unescape_text_format(r#"Caf\303\251 \"Docker\" fix" pinned:true"#).as_deref(),
            Some("Café \"Docker\" fix")
        );
        assert_eq!(
            product_of_home(Path::new("/h/.gemini/antigravity-cli")),
            Some(Product::Cli)
        );
        assert_eq!(
            product_of_home(Path::new("/h/.gemini/antigravity-backup")),
            Some(Product::Ide)
        );
        assert_eq!(product_of_home(Path::new("/h/copy")), None);
    }
}
