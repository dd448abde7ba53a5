//! Session chains addressed by slug and number (seed 002): `list_sessions({slug})` in the
//! default profile and the `relay` profile's `search_history`, `get_conversation` and
//! `list_sessions`, through the real MCP client, over a store holding a five-session Claude
//! chain sharing a slug, a three-session Codex chain of forks, a Claude session alone with its
//! slug (and a sub-agent carrying it) and one without a slug; and the real corpus's slugs,
//! numbered as relay-search would number them from the raw logs.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::client::EskerClient;
use crate::support::{corpus_dir, corpus_store, index_into, run_esker, stderr_of};

pub const CHAIN_SLUG: &str = "sorted-humming-fox";
const LONE_SLUG: &str = "lonely-grey-owl";
/// One word only session `n` (1-based) of the Claude chain says.
const CHAIN_WORDS: [&str; 5] = [
    "amberline",
    "bluefinch",
    "copperleaf",
    "driftwood",
    "emberglow",
];
/// One word only Codex session `n` of the fork chain says.
const CODEX_WORDS: [&str; 3] = ["hollowcrest", "irongate", "junipermoss"];
const CODEX_IDS: [&str; 3] = [
    "019e0a00-0000-7000-8000-00000000c0d1",
    "019e0f26-0000-7000-8000-00000000c0d2",
    "019e144c-0000-7000-8000-00000000c0d3",
];
const LONE_ID: &str = "cccccccc-0000-4000-8000-000000000001";
const UNSLUGGED_ID: &str = "dddddddd-0000-4000-8000-000000000001";
const BROAD: (&str, &str) = ("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z");

/// Native id of Claude chain session `n` (1-based, by start time).
fn chain_id(n: usize) -> String {
    format!("aaaaaaaa-0000-4000-8000-00000000000{n}")
}

/// `2026-05-DDT10:MM:SS.000Z`.
fn may(day: usize, minute: u32, second: u32) -> String {
    format!("2026-05-{day:02}T10:{minute:02}:{second:02}.000Z")
}

/// Claude Code records of one session: two turns, the first with a Bash call and its result.
struct ClaudeLog {
    session_id: String,
    slug: Option<String>,
    agent_id: Option<String>,
    lines: Vec<Value>,
}

impl ClaudeLog {
    fn new(session_id: &str, slug: Option<&str>) -> ClaudeLog {
        ClaudeLog {
            session_id: session_id.to_owned(),
            slug: slug.map(str::to_owned),
            agent_id: None,
            lines: Vec::new(),
        }
    }

    fn record(&mut self, kind: &str, timestamp: String, body: Value) {
        let uuid = format!(
            "{}-{:04}",
            &self.session_id[..18],
            self.lines.len() + usize::from(self.agent_id.is_some()) * 100
        );
        let mut record = json!({
            "type": kind, "uuid": uuid, "parentUuid": null, "sessionId": self.session_id,
            "timestamp": timestamp, "cwd": "/home/dev/relay-app", "gitBranch": "main",
            "version": "2.1.40", "isSidechain": self.agent_id.is_some(), "userType": "external",
        });
        if let Some(slug) = &self.slug {
            record["slug"] = json!(slug);
        }
        if let Some(agent_id) = &self.agent_id {
            record["agentId"] = json!(agent_id);
        }
        if let (Value::Object(fields), Value::Object(extra)) = (&mut record, body) {
            fields.extend(extra);
        }
        self.lines.push(record);
    }

    fn user(&mut self, timestamp: String, prompt: &str) {
        self.record(
            "user",
            timestamp,
            json!({"message": {"role": "user", "content": prompt}}),
        );
    }

    fn assistant(&mut self, timestamp: String, content: Value) {
        let message_id = format!("msg-{}-{}", self.session_id, self.lines.len());
        self.record(
            "assistant",
            timestamp,
            json!({"message": {
                "id": message_id, "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5", "stop_reason": "end_turn", "content": content,
            }}),
        );
    }

    /// Turn one (a prompt, a Bash call, its result, a reply) at minute 0 and turn two (a
    /// prompt and a reply) at minute 5 of day `day`.
    fn two_turns(&mut self, day: usize, word: &str) {
        self.user(
            may(day, 0, 0),
            &format!("chain step {day}: {word} parquet migration"),
        );
        let call_id = format!("toolu_{day}{word}");
        self.assistant(
            may(day, 0, 5),
            json!([{"type": "tool_use", "id": call_id, "name": "Bash",
            "input": {"command": format!("cargo test {word}"), "description": "Run the tests"}}]),
        );
        self.record("user", may(day, 0, 6), json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": "test result: ok", "is_error": false}]}}));
        self.assistant(
            may(day, 0, 10),
            json!([{"type": "text", "text": format!("{word}: the parquet migration step is done")}]),
        );
        self.user(may(day, 5, 0), &format!("follow-up on {word}"));
        self.assistant(
            may(day, 5, 10),
            json!([{"type": "text", "text": format!("answered the {word} follow-up")}]),
        );
    }

    fn write(&self, path: &Path) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        let text: String = self.lines.iter().map(|line| format!("{line}\n")).collect();
        std::fs::write(path, text).expect("write log");
    }
}

/// Codex rollout lines of one session: its own `session_meta` (with `forked_from_id` for a
/// fork), the parent's copied history written in one burst, then its own turn a minute later.
fn codex_rollout(index: usize, copied: &[Value]) -> Vec<Value> {
    let id = CODEX_IDS[index];
    let day = index + 1;
    let at = |minute: u32, second: u32| format!("2026-06-{day:02}T09:{minute:02}:{second:02}.000Z");
    let mut meta = json!({"id": id, "timestamp": at(0, 0), "cwd": "/home/dev/src/forker",
        "originator": "codex_cli_rs", "cli_version": "0.116.0", "source": "cli",
        "model_provider": "openai", "git": {"branch": "fix/forks"}});
    if index > 0 {
        meta["forked_from_id"] = json!(CODEX_IDS[index - 1]);
    }
    let mut lines = vec![json!({"timestamp": at(0, 0), "type": "session_meta", "payload": meta})];
    for (offset, line) in copied.iter().enumerate() {
        let mut copy = line.clone();
        copy["timestamp"] = json!(format!("2026-06-{day:02}T09:00:00.{:03}Z", offset + 1));
        lines.push(copy);
    }
    let word = CODEX_WORDS[index];
    let turn = format!("turn-{word}");
    let prompt = format!("fork {day}: {word} retry budget");
    let command = json!({"cmd": format!("cargo test {word}")}).to_string();
    let own = [
        json!({"timestamp": at(1, 0), "type": "event_msg", "payload": {"type": "task_started", "turn_id": turn}}),
        json!({"timestamp": at(1, 0), "type": "turn_context", "payload": {"turn_id": turn, "cwd": "/home/dev/src/forker", "model": "gpt-5.4"}}),
        json!({"timestamp": at(1, 1), "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}}),
        json!({"timestamp": at(1, 1), "type": "event_msg", "payload": {"type": "user_message", "message": prompt}}),
        json!({"timestamp": at(1, 5), "type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "arguments": command, "call_id": format!("call_{word}")}}),
        json!({"timestamp": at(1, 8), "type": "response_item", "payload": {"type": "function_call_output", "call_id": format!("call_{word}"), "output": "Process exited with code 0\nOutput:\nok"}}),
        json!({"timestamp": at(1, 20), "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": format!("{word}: the retry budget holds")}]}}),
        json!({"timestamp": at(1, 21), "type": "event_msg", "payload": {"type": "task_complete", "turn_id": turn}}),
    ];
    lines.extend(own);
    lines
}

fn write_codex_chain(root: &Path) {
    let mut parent_lines: Vec<Value> = Vec::new();
    for (index, id) in CODEX_IDS.iter().enumerate() {
        let lines = codex_rollout(index, &parent_lines);
        let day = index + 1;
        let path = root
            .join(format!("sessions/2026/06/{day:02}"))
            .join(format!("rollout-2026-06-{day:02}T09-00-00-{id}.jsonl"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        std::fs::write(&path, text).unwrap();
        // A fork copies its parent's own history (its meta and its own turn), not older copies.
        parent_lines = std::iter::once(lines[0].clone())
            .chain(lines[lines.len() - 8..].iter().cloned())
            .collect();
    }
}

/// The logs of the store (see the module doc).
fn write_logs(root: &Path) {
    let project = root.join("claude/projects/-home-dev-relay-app");
    // Written out of order: numbering follows start times, not files.
    for n in [3, 1, 5, 2, 4] {
        let mut log = ClaudeLog::new(&chain_id(n), Some(CHAIN_SLUG));
        log.two_turns(n, CHAIN_WORDS[n - 1]);
        log.write(&project.join(format!("{}.jsonl", chain_id(n))));
    }
    let mut lone = ClaudeLog::new(LONE_ID, Some(LONE_SLUG));
    lone.two_turns(9, "owlfeather");
    lone.write(&project.join(format!("{LONE_ID}.jsonl")));
    let mut sub_agent = ClaudeLog::new(LONE_ID, Some(LONE_SLUG));
    sub_agent.agent_id = Some("a1b2c3d4e5f6a7b8c".into());
    sub_agent.user(may(9, 1, 0), "review the owlfeather change");
    sub_agent.assistant(
        may(9, 1, 30),
        json!([{"type": "text", "text": "owlfeather looks right"}]),
    );
    sub_agent.write(
        &project
            .join(LONE_ID)
            .join("subagents/agent-a1b2c3d4e5f6a7b8c.jsonl"),
    );
    let mut unslugged = ClaudeLog::new(UNSLUGGED_ID, None);
    unslugged.two_turns(12, "slugless");
    unslugged.write(&project.join(format!("{UNSLUGGED_ID}.jsonl")));
    write_codex_chain(&root.join("codex"));
}

/// The store of [`write_logs`], built once per test run.
pub fn chain_store() -> &'static Path {
    static STORE: OnceLock<PathBuf> = OnceLock::new();
    STORE.get_or_init(|| {
        let logs = tempfile::Builder::new()
            .prefix("esker-relay-logs-")
            .tempdir()
            .expect("temp dir")
            .keep();
        write_logs(&logs);
        let data = tempfile::Builder::new()
            .prefix("esker-relay-store-")
            .tempdir()
            .expect("temp dir")
            .keep();
        index_into(&data, &[&logs]);
        data
    })
}

/// An MCP client on `esker serve --profile relay`.
struct RelayClient {
    client: EskerClient,
}

impl RelayClient {
    async fn start(data_dir: &Path) -> RelayClient {
        let client = EskerClient::start_with(
            data_dir,
            &["--no-index", "--profile", "relay"],
            "/nonexistent-esker-test-home",
        )
        .await;
        RelayClient { client }
    }

    /// The text a relay client reads, never an MCP error; structured content is the same
    /// value (wrapped in `result` unless it is an object).
    async fn raw(&self, tool: &str, arguments: Value) -> (String, Value) {
        let result: CallToolResult = self.client.call(tool, arguments.clone()).await;
        assert_eq!(result.is_error, Some(false), "{tool} {arguments}");
        let text = result
            .content
            .first()
            .and_then(|block| block.as_text())
            .map(|text| text.text.clone())
            .expect("a text block");
        let structured = result.structured_content.expect("structured content");
        (text, structured)
    }

    /// The JSON answer (an object or a list).
    async fn json(&self, tool: &str, arguments: Value) -> Value {
        let (text, structured) = self.raw(tool, arguments.clone()).await;
        let answer: Value = serde_json::from_str(&text)
            .unwrap_or_else(|_| panic!("{tool} {arguments} is not JSON: {text}"));
        let expected_structure = if answer.is_object() {
            answer.clone()
        } else {
            json!({ "result": answer })
        };
        assert_eq!(structured, expected_structure);
        answer
    }

    /// A list answer that must not be an error.
    async fn list(&self, tool: &str, arguments: Value) -> Vec<Value> {
        let answer = self.json(tool, arguments.clone()).await;
        let items = answer.as_array().expect("a list").clone();
        assert!(
            items.iter().all(|item| item.get("error").is_none()),
            "{tool} {arguments}: {answer}"
        );
        items
    }

    /// The `error` message of a call that fails the relay way.
    async fn error(&self, tool: &str, arguments: Value) -> String {
        let answer = self.json(tool, arguments.clone()).await;
        let error = match &answer {
            Value::Array(items) if items.len() == 1 => &items[0],
            object => object,
        };
        error["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool} {arguments} should fail: {answer}"))
            .to_owned()
    }

    /// get_conversation in json form.
    async fn conversation(&self, mut arguments: Value) -> Value {
        arguments["format"] = json!("json");
        let answer = self.json("get_conversation", arguments.clone()).await;
        assert!(answer.get("error").is_none(), "{arguments}: {answer}");
        answer
    }

    async fn markdown(&self, arguments: Value) -> String {
        let (text, structured) = self.raw("get_conversation", arguments).await;
        assert_eq!(structured, json!({ "result": text }));
        text
    }
}

fn strings(items: &[Value], key: &str) -> Vec<String> {
    items
        .iter()
        .map(|item| {
            item[key]
                .as_str()
                .unwrap_or_else(|| panic!("{key} in {item}"))
                .to_owned()
        })
        .collect()
}

fn numbers(items: &[Value], key: &str) -> Vec<Option<i64>> {
    items.iter().map(|item| item[key].as_i64()).collect()
}

/// Which chain session (1-based) each message of a json conversation belongs to.
fn chain_numbers_of_messages(conversation: &Value) -> Vec<usize> {
    conversation["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            let id = message["session_id"].as_str().unwrap();
            (1..=5).find(|n| chain_id(*n) == id).unwrap_or(0)
        })
        .collect()
}

fn moraine_list(slug: &str, window: (&str, &str), extra: Value) -> Value {
    let mut arguments = json!({"start_datetime": window.0, "end_datetime": window.1, "slug": slug});
    for (key, value) in extra.as_object().unwrap() {
        arguments[key] = value.clone();
    }
    arguments
}

#[tokio::test]
async fn moraine_list_sessions_takes_a_slug() {
    let client = EskerClient::start(chain_store()).await;
    let listed = client
        .list(moraine_list(CHAIN_SLUG, BROAD, json!({})))
        .await;
    let sessions = listed["sessions"].as_array().unwrap();
    let expected_ids: Vec<String> = (1..=5)
        .map(|n| format!("session:claude-{}", chain_id(n)))
        .collect();
    assert_eq!(strings(sessions, "id"), expected_ids, "chain order");
    assert_eq!(
        numbers(sessions, "session_number"),
        (1..=5).map(Some).collect::<Vec<_>>()
    );
    assert_eq!(
        numbers(sessions, "rank"),
        (1..=5).map(Some).collect::<Vec<_>>()
    );
    for (item, n) in sessions.iter().zip(1..) {
        assert_eq!(
            item["session"]["chain"],
            json!({"slug": CHAIN_SLUG, "session_number": n, "session_count": 5})
        );
    }

    // The window still applies (sessions active from day 2 to day 4); numbers stay the chain's.
    let narrow = client
        .list(moraine_list(
            CHAIN_SLUG,
            ("2026-05-02T00:00:00Z", "2026-05-04T12:00:00Z"),
            json!({}),
        ))
        .await;
    assert_eq!(
        numbers(narrow["sessions"].as_array().unwrap(), "session_number"),
        [Some(2), Some(3), Some(4)]
    );

    // Pages of two follow the chain; the cursor is bound to the slug.
    let mut pages = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let page = client
            .list(moraine_list(
                CHAIN_SLUG,
                BROAD,
                json!({"limit": 2, "cursor": cursor}),
            ))
            .await;
        pages.push(numbers(
            page["sessions"].as_array().unwrap(),
            "session_number",
        ));
        cursor = page["next_cursor"].clone();
        if cursor.is_null() {
            break;
        }
        let other_slug = client
            .failure(
                "list_sessions",
                moraine_list(LONE_SLUG, BROAD, json!({"limit": 2, "cursor": cursor})),
            )
            .await;
        assert_eq!(other_slug["error"]["code"], "invalid_request");
        let no_slug = client
            .failure("list_sessions", json!({"start_datetime": BROAD.0, "end_datetime": BROAD.1, "limit": 2, "cursor": cursor, "sort": "asc"}))
            .await;
        assert_eq!(no_slug["error"]["code"], "invalid_request");
    }
    assert_eq!(
        pages,
        [
            vec![Some(1), Some(2)],
            vec![Some(3), Some(4)],
            vec![Some(5)]
        ]
    );

    // A session alone with its slug is number 1 with a null chain; its sub-agent (same slug)
    // is no member.
    let lone = client.list(moraine_list(LONE_SLUG, BROAD, json!({}))).await;
    let lone = lone["sessions"].as_array().unwrap();
    assert_eq!(strings(lone, "id"), [format!("session:claude-{LONE_ID}")]);
    assert_eq!(lone[0]["session_number"], 1);
    assert_eq!(lone[0]["session"]["chain"], Value::Null);

    let nothing = client
        .list(moraine_list("no-such-slug", BROAD, json!({})))
        .await;
    assert_eq!(nothing["result_count"], 0);
    let chat = client
        .list(moraine_list(
            CHAIN_SLUG,
            BROAD,
            json!({"mode": "web_search"}),
        ))
        .await;
    assert_eq!(chat["result_count"], 0, "the mode filter still applies");
    for bad in [
        json!({"sort": "desc"}),
        json!({"slug": ""}),
        json!({"slug": 7}),
    ] {
        let mut arguments = moraine_list(CHAIN_SLUG, BROAD, json!({}));
        for (key, value) in bad.as_object().unwrap() {
            arguments[key] = value.clone();
        }
        assert_eq!(
            client.error_code("list_sessions", arguments).await,
            "invalid_request"
        );
    }
}

#[tokio::test]
async fn a_codex_fork_chain_is_numbered_and_opened_by_range() {
    let client = EskerClient::start(chain_store()).await;
    let listed = client
        .list(json!({"start_datetime": "2026-06-01T00:00:00Z", "end_datetime": "2026-07-01T00:00:00Z", "sort": "asc"}))
        .await;
    let sessions = listed["sessions"].as_array().unwrap();
    let codex_ids: Vec<String> = CODEX_IDS
        .iter()
        .map(|id| format!("session:codex-{id}"))
        .collect();
    assert_eq!(strings(sessions, "id"), codex_ids);
    for (item, n) in sessions.iter().zip(1..) {
        assert_eq!(
            item["session"]["chain"],
            json!({"slug": null, "session_number": n, "session_count": 3})
        );
    }
    let range = client
        .success("open", json!({"id": codex_ids[0], "sessions": "2-3"}))
        .await;
    let members = range["data"]["members"].as_array().unwrap();
    assert_eq!(numbers(members, "session_number"), [Some(2), Some(3)]);
    for (member, index) in members.iter().zip(1..) {
        let prompts: Vec<&str> = member["turns"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|turn| turn["user_input"]["text"].as_str())
            .collect();
        assert_eq!(
            prompts,
            [format!(
                "fork {}: {} retry budget",
                index + 1,
                CODEX_WORDS[index]
            )],
            "a fork's copied history is not its own"
        );
    }
}

#[tokio::test]
async fn the_relay_profile_serves_three_tools_and_shares_no_list_sessions() {
    let client = RelayClient::start(chain_store()).await;
    let tools = client.client.service().list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        ["search_history", "get_conversation", "list_sessions"]
    );
    for tool in &tools {
        let annotations = tool.annotations.as_ref().unwrap();
        assert_eq!(annotations.read_only_hint, Some(true), "{}", tool.name);
        assert_eq!(annotations.destructive_hint, Some(false));
        assert_eq!(annotations.open_world_hint, Some(false));
    }
    let data_dir = chain_store().to_str().unwrap();
    for profiles in ["moraine,relay", "relay,agtrace"] {
        let output = run_esker(&[
            "serve",
            "--no-index",
            "--data-dir",
            data_dir,
            "--profile",
            profiles,
        ]);
        let stderr = stderr_of(&output);
        assert!(!output.status.success(), "{profiles}");
        assert!(stderr.contains("\"list_sessions\""), "{profiles}: {stderr}");
    }
}

#[tokio::test]
async fn relay_list_sessions_numbers_a_chain_oldest_first() {
    let client = RelayClient::start(chain_store()).await;
    let chain = client
        .list("list_sessions", json!({"slug": CHAIN_SLUG}))
        .await;
    assert_eq!(
        strings(&chain, "session_id"),
        (1..=5).map(chain_id).collect::<Vec<_>>()
    );
    assert_eq!(
        numbers(&chain, "session_number"),
        (1..=5).map(Some).collect::<Vec<_>>()
    );
    let mut keys: Vec<&str> = chain[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "cwd",
            "first_timestamp",
            "git_branch",
            "last_timestamp",
            "message_count",
            "project_dir",
            "session_id",
            "session_number",
            "slug"
        ]
    );
    assert_eq!(chain[2]["first_timestamp"], may(3, 0, 0));
    assert_eq!(chain[2]["last_timestamp"], may(3, 5, 10));
    assert_eq!(chain[2]["slug"], CHAIN_SLUG);
    assert_eq!(chain[2]["project_dir"], "/home/dev/relay-app");
    assert_eq!(chain[2]["git_branch"], "main");
    assert_eq!(
        chain[2]["message_count"], 5,
        "2 prompts, 1 tool call, 2 replies"
    );

    // Dates keep sessions overlapping them (a bare date_to is the whole day); numbers stay.
    let days = client
        .list(
            "list_sessions",
            json!({"slug": CHAIN_SLUG, "date_from": "2026-05-02", "date_to": "2026-05-03"}),
        )
        .await;
    assert_eq!(numbers(&days, "session_number"), [Some(2), Some(3)]);
    let clamped = client
        .list("list_sessions", json!({"slug": CHAIN_SLUG, "limit": 0}))
        .await;
    assert_eq!(
        numbers(&clamped, "session_number"),
        [Some(1)],
        "limit clamps to 1"
    );
    let with_project = client
        .list(
            "list_sessions",
            json!({"slug": CHAIN_SLUG, "project": "elsewhere"}),
        )
        .await;
    assert_eq!(with_project.len(), 5, "a slug overrides project");

    let codex_slug = format!("chain:codex-{}", CODEX_IDS[0]);
    let forks = client
        .list("list_sessions", json!({"slug": codex_slug}))
        .await;
    assert_eq!(strings(&forks, "session_id"), CODEX_IDS);
    assert_eq!(
        numbers(&forks, "session_number"),
        [Some(1), Some(2), Some(3)]
    );
    assert!(forks.iter().all(|row| row["slug"] == codex_slug.as_str()));
    assert_eq!(
        forks[1]["message_count"], 3,
        "the copied history is not counted"
    );

    let lone = client
        .list("list_sessions", json!({"slug": LONE_SLUG}))
        .await;
    assert_eq!(strings(&lone, "session_id"), [LONE_ID]);
    assert_eq!(lone[0]["session_number"], 1);

    // Without a slug: most recently active first, no session_number.
    let recent = client.list("list_sessions", json!({"limit": 500})).await;
    let last: Vec<String> = strings(&recent, "last_timestamp");
    let mut sorted = last.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(last, sorted);
    assert!(recent.iter().all(|row| row.get("session_number").is_none()));
    let unslugged = recent
        .iter()
        .find(|row| row["session_id"] == UNSLUGGED_ID)
        .unwrap();
    assert_eq!(unslugged["slug"], Value::Null);
    let forker = client
        .list("list_sessions", json!({"project": "FORKER"}))
        .await;
    assert_eq!(forker.len(), 3, "project is a case-insensitive substring");
    let june = client
        .list(
            "list_sessions",
            json!({"date_from": "2026-06-02", "date_to": "2026-06-02T23:00:00Z"}),
        )
        .await;
    assert_eq!(strings(&june, "session_id"), [CODEX_IDS[1]]);

    assert!(
        client
            .list("list_sessions", json!({"slug": "no-such-slug"}))
            .await
            .is_empty()
    );
    for (arguments, message) in [
        (json!({"tags": ["insight"]}), "Tags are not supported"),
        (json!({"limit": "ten"}), "limit must be an integer"),
        (json!({"date_from": "soon"}), "Invalid date_from: soon"),
        (json!({"slug": 5}), "slug must be a string"),
        (
            json!({"project_dir": "x"}),
            "Unknown parameter: project_dir",
        ),
    ] {
        let error = client.error("list_sessions", arguments.clone()).await;
        assert!(error.starts_with(message), "{arguments}: {error}");
    }
}

#[tokio::test]
async fn relay_get_conversation_applies_ranges_before_around_roles_and_limit() {
    let client = RelayClient::start(chain_store()).await;
    let whole = client
        .conversation(json!({"session_id_or_slug": CHAIN_SLUG}))
        .await;
    assert_eq!(whole["message_count"], 25);
    assert_eq!(
        strings(whole["sessions"].as_array().unwrap(), "session_id"),
        (1..=5).map(chain_id).collect::<Vec<_>>()
    );
    let owners = chain_numbers_of_messages(&whole);
    assert!(
        owners.windows(2).all(|pair| pair[0] <= pair[1]),
        "chronological: {owners:?}"
    );
    let first = &whole["messages"][0];
    assert_eq!(first["role"], "user");
    assert_eq!(
        first["content"],
        "chain step 1: amberline parquet migration"
    );
    assert_eq!(first["timestamp"], may(1, 0, 0));
    assert!(first["id"].as_str().unwrap().starts_with("event:"));
    assert_eq!(whole["messages"][1]["role"], "tool_summary");
    assert_eq!(
        whole["messages"][1]["content"],
        "[Bash] cargo test amberline"
    );
    assert_eq!(whole["messages"][2]["model"], "claude-sonnet-4-5");

    // The range picks sessions first.
    let range = client
        .conversation(json!({"session_id_or_slug": CHAIN_SLUG, "session": "2-3"}))
        .await;
    assert_eq!(
        strings(range["sessions"].as_array().unwrap(), "session_id"),
        [chain_id(2), chain_id(3)]
    );
    assert_eq!(
        chain_numbers_of_messages(&range),
        [2, 2, 2, 2, 2, 3, 3, 3, 3, 3]
    );

    // around_timestamp: 10 messages up to the time and 10 after it, within the range.
    let middle = may(3, 5, 0);
    let around = client
        .conversation(
            json!({"session_id_or_slug": CHAIN_SLUG, "around_timestamp": middle, "limit": 3}),
        )
        .await;
    let times = strings(around["messages"].as_array().unwrap(), "timestamp");
    assert_eq!(times.len(), 20, "limit is ignored around a time");
    assert_eq!(times.iter().filter(|time| **time <= middle).count(), 10);
    assert_eq!(times[9], middle);
    assert_eq!(times[10], may(3, 5, 10));
    let around_one = client
        .conversation(
            json!({"session_id_or_slug": CHAIN_SLUG, "session": "3", "around_timestamp": middle}),
        )
        .await;
    assert_eq!(chain_numbers_of_messages(&around_one), [3, 3, 3, 3, 3]);

    // roles and limit apply after the range.
    let prompts = client
        .conversation(json!({"session_id_or_slug": CHAIN_SLUG, "session": "1,3-5", "roles": ["user"], "limit": 3}))
        .await;
    assert_eq!(
        strings(prompts["messages"].as_array().unwrap(), "content"),
        [
            "chain step 1: amberline parquet migration",
            "follow-up on amberline",
            "chain step 3: copperleaf parquet migration"
        ]
    );
    let tools = client
        .conversation(json!({"session_id_or_slug": CHAIN_SLUG, "roles": ["tool_summary", "plan"]}))
        .await;
    assert_eq!(tools["message_count"], 5);

    // An exact id is its session alone; a range is ignored for it.
    let exact = client
        .conversation(json!({"session_id_or_slug": chain_id(4), "session": "9"}))
        .await;
    assert_eq!(chain_numbers_of_messages(&exact), [4, 4, 4, 4, 4]);
    let by_esker_id = client
        .conversation(json!({"session_id_or_slug": format!("session:claude-{}", chain_id(4))}))
        .await;
    assert_eq!(by_esker_id["messages"], exact["messages"]);

    // A Codex fork chain by its chain name: a fork's own messages, not its copied history.
    let forks = client
        .conversation(json!({"session_id_or_slug": format!("chain:codex-{}", CODEX_IDS[0]), "session": "2-3", "roles": ["user", "assistant"]}))
        .await;
    assert_eq!(
        strings(forks["messages"].as_array().unwrap(), "content"),
        [
            "fork 2: irongate retry budget",
            "irongate: the retry budget holds",
            "fork 3: junipermoss retry budget",
            "junipermoss: the retry budget holds"
        ]
    );
    let fork_around = client
        .conversation(json!({"session_id_or_slug": format!("chain:codex-{}", CODEX_IDS[0]), "around_timestamp": "2026-06-02T09:01:05Z", "roles": ["tool_summary"]}))
        .await;
    assert_eq!(
        strings(fork_around["messages"].as_array().unwrap(), "content"),
        [
            "[exec_command] cargo test hollowcrest",
            "[exec_command] cargo test irongate",
            "[exec_command] cargo test junipermoss"
        ]
    );

    for (arguments, message) in [
        (json!({"session": "7"}), "Session 7 out of range (1-5)"),
        (json!({"session": "0-2"}), "Session 0-2 out of range (1-5)"),
        (
            json!({"session": "3-1"}),
            "Invalid range: 3-1 (start > end)",
        ),
        (json!({"session": "a-2"}), "Invalid range: a-2"),
        (json!({"session": "x"}), "Invalid session number: x"),
        (json!({"session": "  "}), "Empty session range"),
        (
            json!({"format": "xml"}),
            "Invalid format: xml. Must be 'markdown' or 'json'.",
        ),
        (
            json!({"session_id_or_slug": "nope"}),
            "Session not found: nope",
        ),
        (
            json!({"roles": ["system"]}),
            "Invalid role: system. Options: user, assistant, tool_summary, plan",
        ),
    ] {
        let mut full = json!({"session_id_or_slug": CHAIN_SLUG});
        for (key, value) in arguments.as_object().unwrap() {
            full[key] = value.clone();
        }
        assert_eq!(
            client.error("get_conversation", full.clone()).await,
            message,
            "{full}"
        );
    }
    let lone_range = client
        .error(
            "get_conversation",
            json!({"session_id_or_slug": LONE_SLUG, "session": "2"}),
        )
        .await;
    assert_eq!(lone_range, "Session 2 out of range (1-1)");
}

#[tokio::test]
async fn relay_markdown_reads_like_relays_with_chain_numbers() {
    let client = RelayClient::start(chain_store()).await;
    let markdown = client
        .markdown(json!({"session_id_or_slug": CHAIN_SLUG, "session": "2-3"}))
        .await;
    let expected_start = format!(
        "## {CHAIN_SLUG} (2 sessions)\n**Project:** /home/dev/relay-app | **Branch:** main\n**Range:** May 02 10:00 – May 03 10:05, 2026 UTC | **Messages:** 10\n\n---\n\n*--- Session 2 of 5 ---*\n\n**User** (10:00) `#event:"
    );
    assert!(markdown.starts_with(&expected_start), "{markdown}");
    assert!(markdown.contains("**Tools** (10:00)\n```\n[Bash] cargo test bluefinch\n```"));
    assert!(markdown.contains("*--- Session 3 of 5 ---*"));
    assert!(!markdown.contains("Session 1 of"));
    let alone = client
        .markdown(json!({"session_id_or_slug": UNSLUGGED_ID}))
        .await;
    assert!(alone.starts_with("## dddddddd-000\n"), "{alone}");
    assert!(!alone.contains("*--- Session"));
}

#[tokio::test]
async fn relay_search_history_reads_fts_syntax_and_numbers_hits() {
    let client = RelayClient::start(chain_store()).await;
    let hits = client
        .list(
            "search_history",
            json!({"query": "copperleaf", "limit": 50}),
        )
        .await;
    assert!(!hits.is_empty());
    for hit in &hits {
        assert_eq!(hit["session_id"], chain_id(3));
        assert_eq!(hit["session_number"], 3);
        assert_eq!(hit["slug"], CHAIN_SLUG);
        assert_eq!(hit["project_dir"], "/home/dev/relay-app");
        assert!(
            hit["snippet"]
                .as_str()
                .unwrap()
                .contains(">>>copperleaf<<<"),
            "{hit}"
        );
    }
    let mut keys: Vec<&str> = hits[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "git_branch",
            "id",
            "project_dir",
            "role",
            "session_id",
            "session_number",
            "slug",
            "snippet",
            "timestamp"
        ]
    );
    let roles: Vec<String> = strings(&hits, "role");
    assert!(
        roles.contains(&"user".to_owned()) && roles.contains(&"tool_summary".to_owned()),
        "{roles:?}"
    );

    let session_of = |hit: &Value| (1..=5).find(|n| hit["session_id"] == chain_id(*n).as_str());
    let sessions_hit = |hits: &[Value]| {
        let mut found: Vec<usize> = hits.iter().filter_map(session_of).collect();
        found.sort_unstable();
        found.dedup();
        found
    };
    let both = client
        .list(
            "search_history",
            json!({"query": "parquet migration", "limit": 100}),
        )
        .await;
    assert_eq!(sessions_hit(&both), [1, 2, 3, 4, 5]);
    for hit in both.iter().filter(|hit| session_of(hit).is_some()) {
        assert_eq!(
            hit["session_number"].as_i64(),
            session_of(hit).map(|n| n as i64),
            "{hit}"
        );
    }
    let either = client
        .list(
            "search_history",
            json!({"query": "amberline OR bluefinch", "limit": 50}),
        )
        .await;
    assert_eq!(sessions_hit(&either), [1, 2]);
    let without = client
        .list(
            "search_history",
            json!({"query": "parquet NOT amberline", "limit": 100}),
        )
        .await;
    assert_eq!(sessions_hit(&without), [2, 3, 4, 5]);
    let grouped = client
        .list(
            "search_history",
            json!({"query": "(amberline OR emberglow) AND follow", "limit": 50}),
        )
        .await;
    assert_eq!(sessions_hit(&grouped), [1, 5]);
    assert_eq!(
        grouped.len(),
        4,
        "each session's follow-up prompt and its answer"
    );
    let phrase = client
        .list("search_history", json!({"query": "\"copperleaf parquet\""}))
        .await;
    assert_eq!(sessions_hit(&phrase), [3]);
    let reversed = client
        .list("search_history", json!({"query": "\"parquet copperleaf\""}))
        .await;
    assert!(reversed.is_empty());

    let dated = client
        .list(
            "search_history",
            json!({"query": "parquet migration", "date_from": "2026-05-04", "limit": 100}),
        )
        .await;
    assert_eq!(sessions_hit(&dated), [4, 5]);
    let until = client
        .list(
            "search_history",
            json!({"query": "parquet migration", "date_to": "2026-05-02", "limit": 100}),
        )
        .await;
    assert_eq!(sessions_hit(&until), [1, 2]);
    let elsewhere = client
        .list(
            "search_history",
            json!({"query": "parquet", "project": "elsewhere"}),
        )
        .await;
    assert!(elsewhere.is_empty());
    let limited = client
        .list("search_history", json!({"query": "parquet", "limit": 2}))
        .await;
    assert_eq!(limited.len(), 2);

    let fork = client
        .list("search_history", json!({"query": "irongate"}))
        .await;
    assert!(!fork.is_empty());
    for hit in &fork {
        assert_eq!(hit["session_id"], CODEX_IDS[1]);
        assert_eq!(hit["session_number"], 2);
        assert_eq!(hit["slug"], format!("chain:codex-{}", CODEX_IDS[0]));
    }
    let lone = client
        .list(
            "search_history",
            json!({"query": "owlfeather", "limit": 50}),
        )
        .await;
    let main_hits: Vec<&Value> = lone
        .iter()
        .filter(|hit| hit["session_id"] == LONE_ID)
        .collect();
    assert!(!main_hits.is_empty());
    for hit in main_hits {
        assert_eq!(
            (hit["slug"].as_str(), hit["session_number"].as_i64()),
            (Some(LONE_SLUG), Some(1))
        );
    }
    let sub_agent = lone
        .iter()
        .find(|hit| hit["session_id"] != LONE_ID)
        .expect("the sub-agent's hit");
    assert_eq!(
        (&sub_agent["slug"], &sub_agent["session_number"]),
        (&Value::Null, &Value::Null)
    );
    let slugless = client
        .list("search_history", json!({"query": "slugless"}))
        .await;
    assert!(!slugless.is_empty());
    assert!(
        slugless
            .iter()
            .all(|hit| hit["session_number"].is_null() && hit["slug"].is_null())
    );

    let syntax = "FTS5 syntax: use AND, OR, NOT, \"quoted phrases\".";
    for (query, detail) in [
        ("parquet AND", "fts5: syntax error near \"\""),
        ("OR parquet", "fts5: syntax error near \"OR\""),
        ("(parquet", "fts5: syntax error near \"\""),
        ("\"parquet", "fts5: unterminated string"),
    ] {
        assert_eq!(
            client
                .error("search_history", json!({"query": query}))
                .await,
            format!("Invalid search query: {detail}. {syntax}")
        );
    }
    assert!(
        client
            .error("search_history", json!({"query": "x", "tags": ["plan"]}))
            .await
            .starts_with("Tags are not supported")
    );
}

/// The ids of the hits of `query`, sorted.
async fn hit_ids(client: &RelayClient, query: &str) -> Vec<String> {
    let hits = client
        .list("search_history", json!({"query": query, "limit": 100}))
        .await;
    let mut ids = strings(&hits, "id");
    ids.sort_unstable();
    ids
}

/// The roles of the hits of `query` in Claude chain session `n`, sorted, and whether every hit
/// is in that session.
async fn roles_in_session(client: &RelayClient, query: &str, n: usize) -> (Vec<String>, bool) {
    let hits = client
        .list("search_history", json!({"query": query, "limit": 100}))
        .await;
    let all_in_session = hits.iter().all(|hit| hit["session_id"] == chain_id(n));
    let mut roles = strings(&hits, "role");
    roles.sort_unstable();
    (roles, all_in_session)
}

#[tokio::test]
async fn relay_search_history_reads_near_prefix_anchor_and_column_filters() {
    let client = RelayClient::start(chain_store()).await;
    // Session 3's prompt reads "chain step 3: copperleaf parquet migration" (one token between
    // the two words) and its reply "copperleaf: the parquet migration step is done" (two).
    let user = || vec!["user".to_owned()];
    let user_and_reply = || vec!["assistant".to_owned(), "user".to_owned()];
    assert_eq!(
        roles_in_session(&client, "NEAR(copperleaf migration, 1)", 3).await,
        (user(), true)
    );
    assert_eq!(
        roles_in_session(&client, "NEAR(migration copperleaf, 1)", 3).await,
        (user(), true),
        "NEAR takes its phrases in any order"
    );
    assert_eq!(
        roles_in_session(&client, "NEAR(copperleaf migration, 2)", 3).await,
        (user_and_reply(), true)
    );
    assert_eq!(
        roles_in_session(&client, "NEAR(copperleaf migration)", 3).await,
        (user_and_reply(), true),
        "the default distance is 10"
    );
    assert!(
        hit_ids(&client, "NEAR(copperleaf migration, 0)")
            .await
            .is_empty()
    );
    assert_eq!(
        roles_in_session(&client, "NEAR(copperleaf \"parquet migration\", 0)", 3).await,
        (user(), true)
    );

    let word = hit_ids(&client, "copperleaf").await;
    assert!(!word.is_empty());
    assert_eq!(hit_ids(&client, "copperle*").await, word);
    let prefixed = client
        .list(
            "search_history",
            json!({"query": "copperle*", "limit": 100}),
        )
        .await;
    for hit in &prefixed {
        let snippet = hit["snippet"].as_str().unwrap();
        assert!(snippet.contains(">>>copperleaf<<<"), "{snippet}");
    }
    assert_eq!(hit_ids(&client, "COPPERLEA *").await, word);
    assert_eq!(hit_ids(&client, "content:copperleaf").await, word);
    assert_eq!(hit_ids(&client, "{content} : copperleaf").await, word);
    let either = client
        .list(
            "search_history",
            json!({"query": "amberl* OR emberg*", "limit": 100}),
        )
        .await;
    let mut sessions: Vec<String> = strings(&either, "session_id");
    sessions.sort_unstable();
    sessions.dedup();
    assert_eq!(sessions, [chain_id(1), chain_id(5)]);
    assert!(hit_ids(&client, "copperleafs*").await.is_empty());
    assert_eq!(
        roles_in_session(&client, "\"copperleaf parq\"*", 3).await,
        (user(), true)
    );
    assert!(hit_ids(&client, "\"parquet copperle\"*").await.is_empty());
    assert_eq!(
        roles_in_session(&client, "copperleaf + parquet", 3).await,
        (user(), true)
    );
    assert_eq!(
        roles_in_session(&client, "NEAR(copperl* migrat*, 1)", 3).await,
        (user(), true)
    );

    // "follow-up on amberline" starts with "follow"; "answered the amberline follow-up" does not.
    assert_eq!(
        roles_in_session(&client, "^follow amberline", 1).await,
        (user(), true)
    );
    assert_eq!(
        roles_in_session(&client, "^answered amberline", 1).await,
        (vec!["assistant".to_owned()], true)
    );
    assert!(hit_ids(&client, "-content:amberline").await.is_empty());
    assert_eq!(
        hit_ids(&client, "-content:copperleaf OR amberline").await,
        hit_ids(&client, "amberline").await
    );

    let syntax = "FTS5 syntax: use AND, OR, NOT, \"quoted phrases\".";
    for (query, detail) in [
        ("NEAR(copperleaf migration", "fts5: syntax error near \"\""),
        (
            "NEAR(copperleaf migration, x)",
            "expected integer, got \"x\"",
        ),
        (
            "NEAR(copperleaf OR migration)",
            "fts5: syntax error near \"OR\"",
        ),
        ("NEAR()", "fts5: syntax error near \")\""),
        ("*", "fts5: syntax error near \"*\""),
        ("^", "fts5: syntax error near \"\""),
        ("title:copperleaf", "no such column: title"),
        ("{content author}: copperleaf", "no such column: author"),
    ] {
        assert_eq!(
            client.json("search_history", json!({"query": query})).await,
            json!([{"error": format!("Invalid search query: {detail}. {syntax}")}]),
            "{query}"
        );
    }
}

#[tokio::test]
async fn relay_search_answers_alike_on_both_answer_paths() {
    use esker::mcp::profiles::ProfileSet;
    use esker::mcp::server::EskerServer;
    use esker::service::catalog::{AnswerPath, Catalog};

    let data_dir = chain_store();
    let fast_catalog = Catalog::open_with(data_dir, AnswerPath::Fastest).unwrap();
    fast_catalog
        .snapshot()
        .await
        .unwrap()
        .ready_directory()
        .await
        .unwrap();
    let relay = || ProfileSet::parse("relay").unwrap();
    let fast = EskerServer::with_profiles(fast_catalog, relay());
    let sql = EskerServer::with_profiles(
        Catalog::open_with(data_dir, AnswerPath::SqlOnly).unwrap(),
        relay(),
    );
    for query in [
        "parquet",
        "copperleaf OR irongate",
        "cargo NOT amberline",
        "\"retry budget\"",
        "owlfeather",
    ] {
        let arguments = json!({"query": query, "limit": 100});
        let fields = arguments.as_object().unwrap();
        let expected = sql.call("search_history", fields).await.unwrap();
        let actual = fast.call("search_history", fields).await.unwrap();
        assert!(
            expected.envelope["result"]
                .as_array()
                .is_some_and(|hits| !hits.is_empty()),
            "{query}"
        );
        assert_eq!(actual.envelope, expected.envelope, "{query}");
    }
}

/// relay-search's numbering from the raw Claude logs: every main-conversation record's
/// `sessionId` (sub-agent records, `isSidechain`, left out), its slug (last one written) and
/// its first timestamp; sessions sharing a slug numbered by first timestamp.
fn numbering_from_raw_logs(claude_dir: &Path) -> BTreeMap<String, Vec<String>> {
    let mut first_seen: HashMap<String, (String, Option<String>)> = HashMap::new();
    for entry in walkdir::WalkDir::new(claude_dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        if entry
            .path()
            .extension()
            .is_none_or(|extension| extension != "jsonl")
        {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text.lines() {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let (Some(session_id), Some(timestamp)) =
                (record["sessionId"].as_str(), record["timestamp"].as_str())
            else {
                continue;
            };
            if record["isSidechain"] == true {
                continue;
            }
            let seen = first_seen
                .entry(session_id.to_owned())
                .or_insert_with(|| (timestamp.to_owned(), None));
            if timestamp < seen.0.as_str() {
                seen.0 = timestamp.to_owned();
            }
            if let Some(slug) = record["slug"].as_str().filter(|slug| !slug.is_empty()) {
                seen.1 = Some(slug.to_owned());
            }
        }
    }
    let mut chains: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (session_id, (first, slug)) in first_seen {
        if let Some(slug) = slug {
            chains.entry(slug).or_default().push((first, session_id));
        }
    }
    chains
        .into_iter()
        .map(|(slug, mut members)| {
            members.sort();
            (slug, members.into_iter().map(|(_, id)| id).collect())
        })
        .collect()
}

#[tokio::test]
async fn the_real_corpus_slugs_are_numbered_as_relay_numbers_them() {
    let (Some((data_dir, _)), Some(corpus)) = (corpus_store(), corpus_dir()) else {
        return;
    };
    let expected = numbering_from_raw_logs(&corpus.join("claude"));
    assert!(
        !expected.is_empty(),
        "the corpus has Claude sessions with a slug"
    );
    let relay = RelayClient::start(data_dir).await;
    let moraine = EskerClient::start(data_dir).await;
    for (slug, session_ids) in &expected {
        let listed = relay.list("list_sessions", json!({"slug": slug})).await;
        assert_eq!(&strings(&listed, "session_id"), session_ids, "{slug}");
        let expected_numbers: Vec<Option<i64>> = (1..=session_ids.len() as i64).map(Some).collect();
        assert_eq!(
            numbers(&listed, "session_number"),
            expected_numbers,
            "{slug}"
        );
        let window = ("2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z");
        let page = moraine
            .list(moraine_list(slug, window, json!({"limit": 50})))
            .await;
        let items = page["sessions"].as_array().unwrap();
        let esker_ids: Vec<String> = session_ids
            .iter()
            .map(|id| format!("session:claude-{id}"))
            .collect();
        assert_eq!(strings(items, "id"), esker_ids, "{slug}");
        assert_eq!(numbers(items, "session_number"), expected_numbers, "{slug}");
        let conversation = relay
            .conversation(
                json!({"session_id_or_slug": slug, "session": format!("1-{}", session_ids.len())}),
            )
            .await;
        assert_eq!(
            &strings(conversation["sessions"].as_array().unwrap(), "session_id"),
            session_ids
        );
    }
}
