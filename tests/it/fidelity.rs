//! Fidelity of what is stored: every event, turn and session has a timestamp (inferred ones
//! flagged), and the token columns equal a count made here straight from the raw JSON of each
//! log file, independently of the parsers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{
    corpus_dir, corpus_store, fixture_store, fixtures_dir, query_count, query_rows,
};

/// Token sums in esker's normalized meaning (see `tables/events.sql`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tokens {
    input: i64,
    cached_input: i64,
    output: i64,
    reasoning: i64,
    total: i64,
}

impl Tokens {
    fn add(&mut self, other: Tokens) {
        self.input += other.input;
        self.cached_input += other.cached_input;
        self.output += other.output;
        self.reasoning += other.reasoning;
        self.total += other.total;
    }
}

fn count(value: &Value, field: &str) -> i64 {
    value.get(field).and_then(Value::as_i64).unwrap_or(0)
}

fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// Claude: `message.usage` once per API message id (the last record of the id has the final
/// counts); input = fresh + cache writes + cache reads.
fn claude_tokens(path: &Path) -> Tokens {
    let mut by_message: BTreeMap<String, Tokens> = BTreeMap::new();
    for (line, record) in json_lines(path).iter().enumerate() {
        if record.get("type").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let Some(usage) = record.pointer("/message/usage").filter(|u| u.is_object()) else {
            continue;
        };
        let id = record
            .pointer("/message/id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("line{line}"));
        let cache_read = count(usage, "cache_read_input_tokens");
        let input =
            count(usage, "input_tokens") + count(usage, "cache_creation_input_tokens") + cache_read;
        let output = count(usage, "output_tokens");
        by_message.insert(
            id,
            Tokens {
                input,
                cached_input: cache_read,
                output,
                reasoning: 0,
                total: input + output,
            },
        );
    }
    let mut sum = Tokens::default();
    by_message.values().for_each(|tokens| sum.add(*tokens));
    sum
}

/// Codex: `event_msg/token_count` reports; a report repeating the previous cumulative
/// `total_token_usage` is the same report again; each counted one adds `last_token_usage`.
fn codex_tokens(path: &Path) -> Tokens {
    let mut sum = Tokens::default();
    let mut previous_total: Option<Value> = None;
    for record in json_lines(path) {
        let Some(info) = record
            .pointer("/payload/info")
            .filter(|_| {
                record.pointer("/payload/type").and_then(Value::as_str) == Some("token_count")
            })
            .filter(|info| info.is_object())
        else {
            continue;
        };
        let total = info.get("total_token_usage").cloned();
        if total.is_some() && total == previous_total {
            continue;
        }
        previous_total = total;
        let Some(last) = info.get("last_token_usage") else {
            continue;
        };
        sum.add(Tokens {
            input: count(last, "input_tokens"),
            cached_input: count(last, "cached_input_tokens"),
            output: count(last, "output_tokens"),
            reasoning: count(last, "reasoning_output_tokens"),
            total: count(last, "total_tokens"),
        });
    }
    sum
}

/// Gemini: `tokens` of each message, the last version of a message id in JSONL files (they
/// re-append updated messages); tool-use prompt tokens are input, thoughts are output.
fn gemini_tokens(path: &Path) -> Tokens {
    let messages: Vec<Value> = if path.extension().is_some_and(|ext| ext == "jsonl") {
        json_lines(path)
    } else {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|session| session.get("messages").cloned())
            .and_then(|messages| messages.as_array().cloned())
            .unwrap_or_default()
    };
    // Replayed the way the CLI loads a JSONL conversation: a re-appended id replaces its first
    // copy, `$rewindTo` drops the target and everything after it.
    let mut kept: Vec<(String, Tokens)> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if let Some(target) = message.get("$rewindTo").and_then(Value::as_str) {
            let position = kept.iter().position(|(id, _)| id == target);
            kept.truncate(position.unwrap_or(0));
            continue;
        }
        let id = message
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("#{index}"));
        let tokens = message.get("tokens").filter(|t| t.is_object());
        let thoughts = tokens.map_or(0, |tokens| count(tokens, "thoughts"));
        let counted = tokens.map_or(Tokens::default(), |tokens| Tokens {
            input: count(tokens, "input") + count(tokens, "tool"),
            cached_input: count(tokens, "cached"),
            output: count(tokens, "output") + thoughts,
            reasoning: thoughts,
            total: count(tokens, "total"),
        });
        if message.get("type").is_none() {
            continue;
        }
        match kept.iter_mut().find(|(kept_id, _)| *kept_id == id) {
            Some(slot) => slot.1 = counted,
            None => kept.push((id, counted)),
        }
    }
    let mut sum = Tokens::default();
    kept.iter().for_each(|(_, tokens)| sum.add(*tokens));
    sum
}

/// Copilot CLI: each `session.shutdown` gives its run's totals (`modelMetrics.*.usage`,
/// input counting cache reads and writes); replies after the last shutdown (a killed run) add
/// only their `outputTokens`.
fn copilot_tokens(path: &Path) -> Tokens {
    let mut sum = Tokens::default();
    let mut unsettled_output = 0;
    for record in json_lines(path) {
        match record.get("type").and_then(Value::as_str) {
            Some("assistant.message") => {
                unsettled_output += record
                    .pointer("/data/outputTokens")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
            }
            Some("session.shutdown") => {
                let usages: Vec<Value> = record
                    .pointer("/data/modelMetrics")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flat_map(|metrics| metrics.values())
                    .filter_map(|metric| metric.get("usage").cloned())
                    .collect();
                for usage in &usages {
                    let input = count(usage, "inputTokens");
                    let output = count(usage, "outputTokens");
                    sum.add(Tokens {
                        input,
                        cached_input: count(usage, "cacheReadTokens"),
                        output,
                        reasoning: count(usage, "reasoningTokens"),
                        total: input + output,
                    });
                }
                if !usages.is_empty() {
                    unsettled_output = 0;
                }
            }
            _ => {}
        }
    }
    sum.add(Tokens {
        output: unsettled_output,
        total: unsettled_output,
        ..Tokens::default()
    });
    sum
}

/// Qwen Code: JSONL `usageMetadata` of each assistant record (prompt tokens include cached
/// ones, thoughts are output; the `ui_telemetry` copies are not counted); legacy JSON chats
/// count like Gemini's.
fn qwen_tokens(path: &Path) -> Tokens {
    if path.extension().is_some_and(|ext| ext == "json") {
        return gemini_tokens(path);
    }
    let mut sum = Tokens::default();
    for record in json_lines(path) {
        if record.get("type").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let Some(usage) = record
            .get("usageMetadata")
            .filter(|usage| usage.is_object())
        else {
            continue;
        };
        let thoughts = count(usage, "thoughtsTokenCount");
        let input = count(usage, "promptTokenCount") + count(usage, "toolUsePromptTokenCount");
        let output = count(usage, "candidatesTokenCount") + thoughts;
        let total = usage
            .get("totalTokenCount")
            .and_then(Value::as_i64)
            .unwrap_or(input + output);
        sum.add(Tokens {
            input,
            cached_input: count(usage, "cachedContentTokenCount"),
            output,
            reasoning: thoughts,
            total,
        });
    }
    sum
}

/// Pi: `usage` of each assistant message; `input` is the uncached part, so input = input +
/// cacheRead + cacheWrite; `totalTokens` when written (and not 0), else input + output.
fn pi_tokens(path: &Path) -> Tokens {
    let mut sum = Tokens::default();
    for record in json_lines(path) {
        let Some(message) = record.get("message") else {
            continue;
        };
        if message.get("role").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let Some(usage) = message.get("usage").filter(|usage| usage.is_object()) else {
            continue;
        };
        let cache_read = count(usage, "cacheRead");
        let input = count(usage, "input") + cache_read + count(usage, "cacheWrite");
        let output = count(usage, "output");
        let total = match count(usage, "totalTokens") {
            0 => input + output,
            total => total,
        };
        sum.add(Tokens {
            input,
            cached_input: cache_read,
            output,
            reasoning: 0,
            total,
        });
    }
    sum
}

/// Factory Droid: the `tokenUsage` totals of the `<id>.settings.json` beside the session
/// (input excludes cache writes and reads; thinking is part of the output).
fn factory_tokens(path: &Path) -> Tokens {
    let settings = path.with_extension("settings.json");
    let Some(usage) = std::fs::read_to_string(settings)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|settings| settings.get("tokenUsage").cloned())
    else {
        return Tokens::default();
    };
    let cache_read = count(&usage, "cacheReadTokens");
    let input = count(&usage, "inputTokens") + count(&usage, "cacheCreationTokens") + cache_read;
    let output = count(&usage, "outputTokens");
    Tokens {
        input,
        cached_input: cache_read,
        output,
        reasoning: count(&usage, "thinkingTokens"),
        total: input + output,
    }
}

/// Amp: `usage` of each assistant message; input is `totalInputTokens` (fresh + cache writes +
/// cache reads).
fn amp_tokens(path: &Path) -> Tokens {
    let thread: Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let mut sum = Tokens::default();
    let messages = thread.get("messages").and_then(Value::as_array);
    for message in messages.into_iter().flatten() {
        let Some(usage) = message.get("usage").filter(|usage| usage.is_object()) else {
            continue;
        };
        let input = usage
            .get("totalInputTokens")
            .and_then(Value::as_i64)
            .unwrap_or_else(|| {
                count(usage, "inputTokens")
                    + count(usage, "cacheCreationInputTokens")
                    + count(usage, "cacheReadInputTokens")
            });
        let output = count(usage, "outputTokens");
        sum.add(Tokens {
            input,
            cached_input: count(usage, "cacheReadInputTokens"),
            output,
            reasoning: 0,
            total: input + output,
        });
    }
    sum
}

/// Antigravity: a conversation (`<home>/brain/<uuid>`, its source path) records usage only in
/// `<home>/conversations/<uuid>.db`: one `gen_metadata` row per model call, a protobuf whose
/// field 1.4 is `{2: uncached input, 3: output incl. thinking, 5: cache read, 10: thinking}`.
/// Decoded here with `prost`'s wire primitives, independently of the parser.
fn antigravity_tokens(conversation: &Path) -> Tokens {
    let (Some(id), Some(home)) = (
        conversation.file_name(),
        conversation.parent().and_then(Path::parent),
    ) else {
        return Tokens::default();
    };
    let database = home
        .join("conversations")
        .join(format!("{}.db", id.to_string_lossy()));
    if !database.is_file() {
        return Tokens::default();
    }
    // immutable: never touches the file (these test stores have no -wal).
    let uri = format!("file:{}?mode=ro&immutable=1", database.display());
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    let connection = rusqlite::Connection::open_with_flags(uri, flags).expect("open trajectory");
    let mut statement = connection
        .prepare("SELECT data FROM gen_metadata")
        .expect("gen_metadata");
    let blobs: Vec<Vec<u8>> = statement
        .query_map([], |row| row.get(0))
        .expect("rows")
        .map(|row| row.expect("blob"))
        .collect();
    let mut sum = Tokens::default();
    for blob in blobs {
        let usage = protobuf_field(&protobuf_field(&blob, 1), 4);
        let varint = |number| protobuf_varint(&usage, number);
        let input = varint(2) + varint(5);
        let output = varint(3);
        sum.add(Tokens {
            input,
            cached_input: varint(5),
            output,
            reasoning: varint(10),
            total: input + output,
        });
    }
    sum
}

/// The bytes of the first length-delimited field `number` of a protobuf message.
fn protobuf_field(message: &[u8], number: u32) -> Vec<u8> {
    use prost::encoding::{WireType, decode_key, decode_varint};
    let mut buffer = message;
    while !buffer.is_empty() {
        let Ok((field, wire_type)) = decode_key(&mut buffer) else {
            break;
        };
        match wire_type {
            WireType::Varint => {
                let _ = decode_varint(&mut buffer);
            }
            WireType::LengthDelimited => {
                let length = decode_varint(&mut buffer).unwrap_or(0) as usize;
                let (bytes, rest) = buffer.split_at(length.min(buffer.len()));
                if field == number {
                    return bytes.to_vec();
                }
                buffer = rest;
            }
            WireType::SixtyFourBit => buffer = &buffer[8.min(buffer.len())..],
            WireType::ThirtyTwoBit => buffer = &buffer[4.min(buffer.len())..],
            _ => break,
        }
    }
    Vec::new()
}

/// The first varint field `number` of a protobuf message (0 when absent).
fn protobuf_varint(message: &[u8], number: u32) -> i64 {
    use prost::encoding::{WireType, decode_key, decode_varint};
    let mut buffer = message;
    while !buffer.is_empty() {
        let Ok((field, wire_type)) = decode_key(&mut buffer) else {
            break;
        };
        match wire_type {
            WireType::Varint => {
                let value = decode_varint(&mut buffer).unwrap_or(0);
                if field == number {
                    return value as i64;
                }
            }
            WireType::LengthDelimited => {
                let length = decode_varint(&mut buffer).unwrap_or(0) as usize;
                buffer = &buffer[length.min(buffer.len())..];
            }
            WireType::SixtyFourBit => buffer = &buffer[8.min(buffer.len())..],
            WireType::ThirtyTwoBit => buffer = &buffer[4.min(buffer.len())..],
            _ => break,
        }
    }
    0
}

/// OpenCode: every message's `tokens` once (`input` fresh, cache reads and writes apart,
/// `output` without reasoning), from the database's `message.data` or the legacy tree's message
/// files (`storage/message/<ses>/`, the source path of a tree session).
fn opencode_tokens(source: &Path) -> Tokens {
    let messages: Vec<Value> = if source.is_dir() {
        std::fs::read_dir(source)
            .expect("message dir")
            .filter_map(Result::ok)
            .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
            .filter_map(|text| serde_json::from_str(&text).ok())
            .collect()
    } else {
        let copy = tempfile::tempdir().expect("temp dir");
        let database = copy.path().join("copy.db");
        std::fs::copy(source, &database).expect("copy store");
        let wal = format!("{}-wal", source.display());
        if Path::new(&wal).is_file() {
            std::fs::copy(&wal, copy.path().join("copy.db-wal")).expect("copy wal");
        }
        let connection = rusqlite::Connection::open(&database).expect("open copy");
        let mut statement = connection
            .prepare("SELECT data FROM message")
            .expect("messages");
        statement
            .query_map([], |row| row.get::<_, String>(0))
            .expect("rows")
            .filter_map(Result::ok)
            .filter_map(|text| serde_json::from_str(&text).ok())
            .collect()
    };
    let mut sum = Tokens::default();
    for message in messages {
        let Some(tokens) = message.get("tokens") else {
            continue;
        };
        let cache = tokens.get("cache").cloned().unwrap_or(Value::Null);
        let input = count(tokens, "input") + count(&cache, "read") + count(&cache, "write");
        let output = count(tokens, "output") + count(tokens, "reasoning");
        sum.add(Tokens {
            input,
            cached_input: count(&cache, "read"),
            output,
            reasoning: count(tokens, "reasoning"),
            total: input + output,
        });
    }
    sum
}

/// Kimi: a session folder's `wire.jsonl` `StatusUpdate.token_usage`, once per `message_id`
/// (input = other + cache reads + cache writes).
fn kimi_tokens(folder: &Path) -> Tokens {
    if folder.join("agents").is_dir() {
        return kimi_code_tokens(folder);
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut sum = Tokens::default();
    for record in json_lines(&folder.join("wire.jsonl")) {
        let Some(payload) = record.pointer("/message/payload") else {
            continue;
        };
        if record.pointer("/message/type").and_then(Value::as_str) != Some("StatusUpdate") {
            continue;
        }
        let Some(usage) = payload.get("token_usage") else {
            continue;
        };
        let id = payload.get("message_id").and_then(Value::as_str);
        if id.is_some_and(|id| !seen.insert(id.to_string())) {
            continue;
        }
        let input = count(usage, "input_other")
            + count(usage, "input_cache_read")
            + count(usage, "input_cache_creation");
        let output = count(usage, "output");
        sum.add(Tokens {
            input,
            cached_input: count(usage, "input_cache_read"),
            output,
            reasoning: 0,
            total: input + output,
        });
    }
    sum
}

/// Kimi Code: every agent's `usage.record` (input as recorded, cache reads as cached input).
fn kimi_code_tokens(folder: &Path) -> Tokens {
    let mut sum = Tokens::default();
    let agents = std::fs::read_dir(folder.join("agents")).expect("agents");
    for agent in agents {
        let wire = agent.expect("agent").path().join("wire.jsonl");
        for record in json_lines(&wire) {
            if record.get("type").and_then(Value::as_str) != Some("usage.record") {
                continue;
            }
            let usage = record.get("usage").unwrap_or(&record);
            let (input, output) = (count(usage, "input_tokens"), count(usage, "output_tokens"));
            sum.add(Tokens {
                input,
                cached_input: count(usage, "cache_read_tokens")
                    + count(usage, "cached_input_tokens"),
                output,
                reasoning: 0,
                total: input + output,
            });
        }
    }
    sum
}

/// Aider: the `> Tokens: 2.3k sent, 150 received.` lines, as printed (rounded).
fn aider_tokens(path: &Path) -> Tokens {
    let count_of = |text: &str| -> i64 {
        let (digits, scale) = match text.strip_suffix('k') {
            Some(digits) => (digits, 1_000.0),
            None => (text, 1.0),
        };
        (digits.parse::<f64>().unwrap_or(0.0) * scale).round() as i64
    };
    let mut sum = Tokens::default();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    for line in text.lines() {
        let Some(counts) = line.strip_prefix("> Tokens: ") else {
            continue;
        };
        let counts = counts.split(". ").next().unwrap_or(counts);
        let mut tokens = Tokens::default();
        for item in counts.split(", ") {
            match item.split_once(' ') {
                Some((number, "sent")) => tokens.input = count_of(number),
                Some((number, "received")) => tokens.output = count_of(number),
                Some((number, "cache hit")) => tokens.cached_input = count_of(number),
                _ => {}
            }
        }
        tokens.total = tokens.input + tokens.output;
        sum.add(tokens);
    }
    sum
}

/// Goose: the accumulated session totals of `sessions.db` (Goose keeps no per-call usage),
/// for the sessions that have messages.
fn goose_tokens(database: &Path) -> Tokens {
    if database
        .extension()
        .is_some_and(|extension| extension == "jsonl")
    {
        return goose_legacy_tokens(database);
    }
    let uri = format!("file:{}?mode=ro&immutable=1", database.display());
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    let connection = rusqlite::Connection::open_with_flags(uri, flags).expect("open goose store");
    let (input, output, total): (i64, i64, i64) = connection
        .query_row(
            "SELECT coalesce(sum(accumulated_input_tokens), 0), \
             coalesce(sum(accumulated_output_tokens), 0), coalesce(sum(accumulated_total_tokens), 0) \
             FROM sessions s WHERE EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .expect("sums");
    Tokens {
        input,
        cached_input: 0,
        output,
        reasoning: 0,
        total,
    }
}

/// Crush: the session counters of `crush.db` (Crush keeps no per-message usage), for the
/// sessions that have messages: `prompt_tokens` in, `completion_tokens` out. Real stores keep
/// their rows in the `-wal`, so the store and its `-wal` are copied and the copy is read.
fn crush_tokens(database: &Path) -> Tokens {
    let copy_dir = tempfile::tempdir().expect("temp dir");
    let copy = copy_dir.path().join("crush.db");
    std::fs::copy(database, &copy).expect("copy crush store");
    let wal = database.with_file_name("crush.db-wal");
    if wal.is_file() {
        std::fs::copy(&wal, copy_dir.path().join("crush.db-wal")).expect("copy -wal");
    }
    for entry in std::fs::read_dir(copy_dir.path()).expect("list copies") {
        use std::os::unix::fs::PermissionsExt;
        let path = entry.expect("entry").path();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let connection = rusqlite::Connection::open(&copy).expect("open crush store copy");
    let (input, output): (i64, i64) = connection
        .query_row(
            "SELECT coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0) \
             FROM sessions s WHERE EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .expect("sums");
    Tokens {
        input,
        cached_input: 0,
        output,
        reasoning: 0,
        total: input + output,
    }
}

/// Cline and Roo Code: a task folder's `ui_messages.json` `api_req_started` messages (input =
/// `tokensIn` + cache reads + cache writes).
fn cline_tokens(folder: &Path) -> Tokens {
    let text = std::fs::read_to_string(folder.join("ui_messages.json")).expect("ui_messages");
    let messages: Vec<Value> = serde_json::from_str(&text).expect("json");
    let requests: Vec<Value> = messages
        .iter()
        .filter(|message| message.get("say").and_then(Value::as_str) == Some("api_req_started"))
        .map(|message| {
            message
                .get("text")
                .and_then(Value::as_str)
                .and_then(|text| serde_json::from_str(text).ok())
                .unwrap_or(Value::Null)
        })
        .collect();
    // The API history's assistant messages, one per request, carry the usage a request lacks.
    let history: Vec<Value> = std::fs::read_to_string(folder.join("api_conversation_history.json"))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let replies: Vec<&Value> = history
        .iter()
        .filter(|message| message.get("role").and_then(Value::as_str) == Some("assistant"))
        .collect();
    let aligned = !replies.is_empty() && replies.len() == requests.len();
    let mut sum = Tokens::default();
    for (number, request) in requests.iter().enumerate() {
        let (input, cached, output) =
            if request.get("tokensIn").is_some() || request.get("tokensOut").is_some() {
                (
                    count(request, "tokensIn")
                        + count(request, "cacheReads")
                        + count(request, "cacheWrites"),
                    count(request, "cacheReads"),
                    count(request, "tokensOut"),
                )
            } else if let Some(tokens) = aligned
                .then(|| replies[number].pointer("/metrics/tokens"))
                .flatten()
            {
                (
                    count(tokens, "prompt") + count(tokens, "cached"),
                    count(tokens, "cached"),
                    count(tokens, "completion"),
                )
            } else {
                continue;
            };
        sum.add(Tokens {
            input,
            cached_input: cached,
            output,
            reasoning: 0,
            total: input + output,
        });
    }
    sum
}

/// Goose's legacy `<session>.jsonl`: the accumulated totals of its metadata line.
fn goose_legacy_tokens(path: &Path) -> Tokens {
    let header = json_lines(path).into_iter().next().unwrap_or(Value::Null);
    let input = count(&header, "accumulated_input_tokens");
    let output = count(&header, "accumulated_output_tokens");
    Tokens {
        input,
        cached_input: 0,
        output,
        reasoning: 0,
        total: header
            .get("accumulated_total_tokens")
            .and_then(Value::as_i64)
            .unwrap_or(input + output),
    }
}

/// The stored sums per source file, from `events`.
fn stored_tokens_by_file(data_dir: &Path) -> BTreeMap<String, (String, Tokens)> {
    let rows = query_rows(
        data_dir,
        "SELECT source_path, source, \
         coalesce(sum(input_tokens), 0) AS input, coalesce(sum(cached_input_tokens), 0) AS cached, \
         coalesce(sum(output_tokens), 0) AS output, coalesce(sum(reasoning_tokens), 0) AS reasoning, \
         coalesce(sum(total_tokens), 0) AS total \
         FROM events GROUP BY source_path, source",
    );
    rows.into_iter()
        .map(|row| {
            let number = |name: &str| row.get(name).and_then(Value::as_i64).unwrap_or(0);
            let tokens = Tokens {
                input: number("input"),
                cached_input: number("cached"),
                output: number("output"),
                reasoning: number("reasoning"),
                total: number("total"),
            };
            let text = |name: &str| row[name].as_str().unwrap_or_default().to_string();
            (text("source_path"), (text("source"), tokens))
        })
        .collect()
}

/// Every file of the store: its stored sums equal the independent count.
fn assert_tokens_match_raw_json(data_dir: &Path) -> usize {
    let stored = stored_tokens_by_file(data_dir);
    let mut files_with_usage = 0;
    for (path, (source, tokens)) in &stored {
        let expected = match source.as_str() {
            "claude" => claude_tokens(Path::new(path)),
            "codex" => codex_tokens(Path::new(path)),
            "gemini" => gemini_tokens(Path::new(path)),
            "copilot" => copilot_tokens(Path::new(path)),
            // Cursor transcripts record no usage.
            "cursor" => Tokens::default(),
            "qwen" => qwen_tokens(Path::new(path)),
            "pi" => pi_tokens(Path::new(path)),
            "factory" => factory_tokens(Path::new(path)),
            "amp" => amp_tokens(Path::new(path)),
            "aider" => aider_tokens(Path::new(path)),
            "antigravity" => antigravity_tokens(Path::new(path)),
            "opencode" => opencode_tokens(Path::new(path)),
            "kimi" => kimi_tokens(Path::new(path)),
            "goose" => goose_tokens(Path::new(path)),
            "crush" => crush_tokens(Path::new(path)),
            "cline" | "roo" => cline_tokens(Path::new(path)),
            other => panic!("unexpected source {other}"),
        };
        assert_eq!(*tokens, expected, "token sums of {path}");
        files_with_usage += usize::from(expected != Tokens::default());
    }
    files_with_usage
}

/// Turn and session sums equal the sum of their events (no double counting on the way up).
fn assert_sums_roll_up(data_dir: &Path) {
    for (table, key) in [("turns", "turn_id"), ("sessions", "session_id")] {
        let mismatches = query_count(
            data_dir,
            &format!(
                "SELECT count(*) FROM {table} t JOIN \
                 (SELECT {key}, sum(total_tokens) AS total, sum(input_tokens) AS input \
                  FROM events GROUP BY {key}) e ON t.{key} = e.{key} \
                 WHERE (t.total_tokens IS DISTINCT FROM e.total) \
                    OR (t.input_tokens IS DISTINCT FROM e.input)"
            ),
        );
        assert_eq!(mismatches, 0, "{table} token sums equal their events' sums");
    }
}

fn assert_no_null_timestamps(data_dir: &Path) {
    for sql in [
        "SELECT count(*) FROM events WHERE timestamp IS NULL",
        "SELECT count(*) FROM turns WHERE started_at IS NULL OR updated_at IS NULL",
        "SELECT count(*) FROM sessions WHERE started_at IS NULL OR updated_at IS NULL",
        "SELECT count(*) FROM events WHERE timestamp_inferred IS NULL",
    ] {
        assert_eq!(query_count(data_dir, sql), 0, "{sql}");
    }
}

#[test]
fn fixtures_have_no_null_timestamps_and_legacy_rollouts_infer_them() {
    let data_dir = fixture_store();
    assert_no_null_timestamps(data_dir);
    let legacy = fixtures_dir()
        .join("codex/sessions/2025/08/20")
        .canonicalize()
        .expect("legacy fixture dir");
    let legacy = legacy.to_string_lossy();
    let inferred = query_count(
        data_dir,
        &format!(
            "SELECT count(*) FROM events WHERE timestamp_inferred AND source_path LIKE '{legacy}%'"
        ),
    );
    assert!(
        inferred > 0,
        "the legacy rollout's untimed records are inferred"
    );
    // Inferred times are never before the session start and never after its last time.
    let out_of_range = query_count(
        data_dir,
        "SELECT count(*) FROM events e JOIN sessions s ON e.session_id = s.session_id \
         WHERE e.timestamp < s.started_at OR e.timestamp > s.updated_at",
    );
    assert_eq!(out_of_range, 0);
}

#[test]
fn fixture_token_sums_match_the_raw_json() {
    let data_dir = fixture_store();
    let files_with_usage = assert_tokens_match_raw_json(data_dir);
    assert!(
        files_with_usage >= 3,
        "fixtures of each harness record usage"
    );
    assert_sums_roll_up(data_dir);
    // A session whose logs record no usage has null sums, not 0.
    let zero_not_null = query_count(
        data_dir,
        "SELECT count(*) FROM sessions s WHERE s.total_tokens = 0 AND NOT EXISTS \
         (SELECT 1 FROM events e WHERE e.session_id = s.session_id AND e.total_tokens IS NOT NULL)",
    );
    assert_eq!(zero_not_null, 0);
}

#[test]
fn corpus_has_no_null_timestamps() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    assert_no_null_timestamps(data_dir);
}

#[test]
fn corpus_token_sums_match_the_raw_json_per_file() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let files_with_usage = assert_tokens_match_raw_json(data_dir);
    assert!(
        files_with_usage >= 10,
        "most real logs record usage (found {files_with_usage})"
    );
    assert_sums_roll_up(data_dir);
    // Models are listed for sessions whose logs name them.
    let corpus: PathBuf = corpus_dir().expect("corpus present");
    assert!(corpus.is_dir());
    let without_models = query_count(
        data_dir,
        "SELECT count(*) FROM sessions WHERE models = '[]' AND model IS NOT NULL",
    );
    assert_eq!(
        without_models, 0,
        "a session with a model lists it in models"
    );
}
