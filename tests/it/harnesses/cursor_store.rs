//! cursor-agent chat stores (`chats/<hash>/<chat>/store.db`): the fixture's chat through the real
//! binary (context, prompts, reasoning, a denied tool, pairing, inferred times, no usage), a
//! message a live writer adds (WAL, never checkpointed) adding exactly its events with the
//! owner's files unchanged, and the real stores of the corpus.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{assert_tools_paired, number, rows, texts};
use crate::sqlite_harnesses::{LiveStore, files_and_bytes, live_store};
use crate::support::{corpus_dir, corpus_store, fixtures_dir, index_into};

const CHAT: &str = "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
const WORKSPACE_HASH: &str = "c334c9d2cd1b9f2a8d640f83cd1e2987";

fn fixture_chat() -> PathBuf {
    fixtures_dir()
        .join("cursor-agent/chats")
        .join(WORKSPACE_HASH)
        .join(CHAT)
}

#[test]
fn cursor_store_chat_with_context_tools_a_denied_call_and_inferred_times() {
    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(data.path(), &[&fixtures_dir().join("cursor-agent")]);
    assert!(stderr.contains("cursor_store=1"), "{stderr}");
    assert!(stderr.contains("0 failed"), "{stderr}");
    let dir = data.path();
    let session = rows(
        dir,
        "SELECT source, native_id, title, cwd, model, turn_count, completed, total_tokens, \
         parent_session_id FROM sessions",
    );
    assert_eq!(session.len(), 1, "{session:?}");
    let session = &session[0];
    assert_eq!(session["source"], "cursor");
    assert_eq!(session["native_id"], CHAT);
    assert_eq!(session["title"], "Heron cache audit");
    assert_eq!(
        session["cwd"], "/home/dev/heron",
        "from the root's workspace URI"
    );
    assert_eq!(session["model"], "claude-4.5-sonnet-thinking");
    assert_eq!(session["completed"], json!(true));
    assert!(
        session.get("total_tokens").is_none(),
        "the store records no usage: null, not 0"
    );
    assert!(session.get("parent_session_id").is_none());

    let events = rows(
        dir,
        "SELECT type, subtype, tool_name, tool_call_id, terminal, text FROM events ORDER BY seq",
    );
    let summary: Vec<(String, String, String)> = events
        .iter()
        .map(|row| {
            let text = |name: &str| {
                row.get(name)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            (text("type"), text("subtype"), text("tool_name"))
        })
        .collect();
    let expected = [
        ("system", "system_prompt", ""),
        ("system", "context", ""),
        ("user_input", "", ""),
        ("reasoning", "", ""),
        ("assistant_response", "", ""),
        ("tool_call", "", "Shell"),
        ("tool_response", "error", "Shell"),
        ("tool_call", "", "Read"),
        ("tool_response", "", "Read"),
        ("assistant_response", "", ""),
        ("user_input", "", ""),
        ("assistant_response", "", ""),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(summary, expected);
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY seq"
        ),
        [
            "why is the heron cache stale after deploy?",
            "add the build hash to the key"
        ],
        "the query without its <user_query> wrapper; <user_info> is context"
    );
    assert_eq!(events[9]["terminal"], json!(true));
    assert_eq!(events[11]["terminal"], json!(true));
    assert_tools_paired(dir);
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE NOT timestamp_inferred OR timestamp IS NULL"
        ),
        Some(0),
        "every time is inferred from the chat's creation, none is null"
    );
    let again = index_into(dir, &[&fixtures_dir().join("cursor-agent")]);
    assert!(again.contains(" 0 ingested"), "{again}");
}

/// The bytes of a protobuf length-delimited field 1 holding `id` (a root's message entry).
fn message_entry(id: &[u8; 32]) -> Vec<u8> {
    let mut entry = vec![0x0a, 0x20];
    entry.extend_from_slice(id);
    entry
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[test]
fn cursor_store_messages_a_live_writer_adds_are_exactly_the_new_events() {
    let chat = format!("chats/{WORKSPACE_HASH}/{CHAT}");
    let LiveStore { logs, owner } = live_store(
        &fixture_chat().join("store.db"),
        &format!("{chat}/store.db"),
    );
    let chat_dir = logs.path().join(chat);
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);
    let before = number(data.path(), "SELECT count(*) FROM events");

    // The owner stores two messages, a new root naming them after the old ones, and points the
    // metadata at it.
    let meta_hex: String = owner
        .query_row("SELECT value FROM meta WHERE key = '0'", [], |row| {
            row.get(0)
        })
        .expect("meta");
    let meta_bytes: Vec<u8> = (0..meta_hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&meta_hex[at..at + 2], 16).expect("hex"))
        .collect();
    let mut meta: Value = serde_json::from_slice(&meta_bytes).expect("meta JSON");
    let old_root_id = meta["latestRootBlobId"].as_str().expect("root").to_string();
    let mut root: Vec<u8> = owner
        .query_row(
            "SELECT data FROM blobs WHERE id = ?1",
            [&old_root_id],
            |row| row.get(0),
        )
        .expect("root");
    for (number, message) in [
        json!({"role": "user", "content": [{"type": "text",
            "text": "<user_query>\nand the egret cache?\n</user_query>"}]}),
        json!({"id": "1", "role": "assistant", "content": [{"type": "text",
            "text": "The egret cache already keys on the build hash."}]}),
    ]
    .into_iter()
    .enumerate()
    {
        let id = [0xe0 + number as u8; 32];
        owner
            .execute(
                "INSERT INTO blobs VALUES (?1, ?2)",
                rusqlite::params![hex(&id), message.to_string().into_bytes()],
            )
            .expect("insert message");
        root.extend(message_entry(&id));
    }
    let new_root_id = hex(&[0xee; 32]);
    owner
        .execute(
            "INSERT INTO blobs VALUES (?1, ?2)",
            rusqlite::params![new_root_id, root],
        )
        .expect("insert root");
    meta["latestRootBlobId"] = json!(new_root_id);
    owner
        .execute(
            "UPDATE meta SET value = ?1 WHERE key = '0'",
            [hex(meta.to_string().as_bytes())],
        )
        .expect("update meta");
    let owner_files = files_and_bytes(&chat_dir);
    assert!(
        owner_files
            .iter()
            .any(|(name, bytes)| name == "store.db-wal" && !bytes.is_empty()),
        "the new rows are still in the WAL"
    );

    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("events: 2 new"), "{stderr}");
    assert_eq!(
        number(data.path(), "SELECT count(*) FROM events"),
        before.map(|count| count + 2)
    );
    assert_eq!(
        texts(
            data.path(),
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY seq DESC LIMIT 1"
        ),
        ["and the egret cache?"]
    );
    assert_eq!(
        files_and_bytes(&chat_dir),
        owner_files,
        "reading never changed the owner's files"
    );
    let again = index_into(data.path(), &[logs.path()]);
    assert!(again.contains("events: 0 new"), "{again}");
}

#[test]
fn corpus_cursor_chat_stores_are_read_and_left_unchanged() {
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    let corpus = corpus_dir().expect("corpus").join("cursor");
    let stores = [
        "DylanPierce15_DeepSpace/chats/243eade30fba771a455250a4d61e9793/6d469ac7-5221-444b-b835-75b06ef0e3b9",
        "RLuf_FazAI/chats/887904812217cca9bc2b9adb875daf42/dd3957b4-a8a8-41bc-83b9-a9bbb9fc4073",
    ];
    for chat in stores {
        let database = corpus
            .join(chat)
            .join("store.db")
            .canonicalize()
            .expect("store");
        assert!(
            stderr.contains(&format!(
                "{:<17}  {} (1 sessions",
                "cursor_store",
                database.display()
            )),
            "{stderr}"
        );
    }
    // DeepSpace: everything is in the uncheckpointed WAL; two shell calls and a write were denied.
    let deep = "session:cursor-6d469ac7-5221-444b-b835-75b06ef0e3b9";
    let sql = |condition: &str| {
        format!("SELECT count(*) FROM events WHERE session_id = '{deep}' AND {condition}")
    };
    assert_eq!(number(data_dir, &sql("type = 'tool_call'")), Some(18));
    assert_eq!(
        number(
            data_dir,
            &sql("type = 'tool_response' AND subtype = 'error'")
        ),
        Some(3)
    );
    assert_eq!(
        number(data_dir, &sql("type = 'user_input'")),
        Some(1),
        "the <user_info> message is context, the <user_query> the prompt"
    );
    let faz = rows(
        data_dir,
        "SELECT model, turn_count FROM sessions \
         WHERE native_id = 'dd3957b4-a8a8-41bc-83b9-a9bbb9fc4073'",
    );
    assert_eq!(faz[0]["model"], "gpt-5");
    assert_eq!(
        faz[0]["turn_count"],
        json!(18),
        "17 prompts after the system prompt"
    );
    let stray = corpus
        .join(stores[1])
        .read_dir()
        .expect("chat dir")
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name() != "store.db")
        .count();
    assert_eq!(
        stray, 0,
        "no -wal/-shm created beside a store that had none"
    );
}
