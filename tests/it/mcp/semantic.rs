//! Issue #23 item 4, the semantic leg end to end: a paraphrase that shares no word with its
//! session finds it through `search_sessions` only with the leg on, with vectors made by an
//! installed static model (a tiny one generated here: its words grouped by meaning) or by an
//! OpenAI-compatible embeddings endpoint this test serves on localhost.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::mcp::client::{EskerClient, strings_at};
use crate::support::{run_esker, stderr_of};

/// The session about the failing test, told in other words than the query's.
const AUTH_SESSION: &str = "session:claude-auth-spec";
const README_SESSION: &str = "session:claude-readme";
/// No word (nor stem) in common with either session.
const PARAPHRASE: &str = "flaky login test";

/// Words by meaning: a word's vector is its group's axis (other words get an axis of their own).
const GROUPS: [&[&str]; 4] = [
    &["flaky", "intermittent", "sporadic"],
    &["login", "auth", "signin"],
    &["test", "spec"],
    &["readme", "badges", "docs"],
];
const OTHER_WORDS: [&str; 6] = ["failure", "update", "seen", "on", "ci", "again"];
const DIM: usize = 12;

/// The vector of `word`: its group's axis, or an axis of its own; `None` for unknown words.
fn word_vector(word: &str) -> Option<Vec<f32>> {
    let axis = GROUPS
        .iter()
        .position(|group| group.contains(&word))
        .or_else(|| {
            OTHER_WORDS
                .iter()
                .position(|other| *other == word)
                .map(|i| GROUPS.len() + i)
        })?;
    let mut vector = vec![0.0; DIM];
    vector[axis] = 1.0;
    Some(vector)
}

fn vocabulary() -> Vec<&'static str> {
    GROUPS
        .iter()
        .flat_map(|group| group.iter().copied())
        .chain(OTHER_WORDS)
        .collect()
}

/// Two lean Claude-shaped sessions (the layout converters write).
fn write_logs(dir: &Path) {
    let session = |id: &str, texts: &[(&str, &str)]| {
        let lines: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(index, (kind, text))| {
                json!({"type": kind, "sessionId": id,
                    "timestamp": format!("2026-03-01T10:00:{:02}Z", index + 1),
                    "message": {"role": kind, "content": text}})
                .to_string()
            })
            .collect();
        std::fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").expect("write");
    };
    session(
        "auth-spec",
        &[
            ("user", "intermittent auth spec failure seen on CI again"),
            ("assistant", "sporadic signin spec"),
        ],
    );
    session(
        "readme",
        &[
            ("user", "update the README badges"),
            ("assistant", "docs update"),
        ],
    );
}

/// The generated model as a model2vec directory: tokenizer.json + model.safetensors.
fn write_model(dir: &Path) {
    let words = vocabulary();
    let mut table = vec![0.0f32; DIM]; // [UNK]
    for word in &words {
        table.extend(word_vector(word).expect("a vocabulary word"));
    }
    std::fs::create_dir_all(dir).expect("model dir");
    let tokenizer = esker::semantic::model_files::word_piece_tokenizer(&words);
    let weights = esker::semantic::model_files::embedding_safetensors(&table, words.len() + 1, DIM);
    std::fs::write(dir.join("tokenizer.json"), tokenizer).expect("tokenizer");
    std::fs::write(dir.join("model.safetensors"), weights).expect("weights");
}

fn esker_ok(args: &[&str]) -> String {
    let output = run_esker(args);
    let stderr = stderr_of(&output);
    assert!(output.status.success(), "esker {args:?} failed: {stderr}");
    stderr
}

/// The distinct sessions of the hits for `query`, best first.
async fn sessions_found(client: &EskerClient, query: &str) -> Vec<String> {
    let data = client.search(json!({"query": query})).await;
    let mut sessions: Vec<String> = Vec::new();
    for session in strings_at(&data["results"], "/session/id") {
        if !sessions.contains(&session) {
            sessions.push(session);
        }
    }
    sessions
}

#[tokio::test]
async fn a_paraphrase_finds_its_session_only_with_the_semantic_leg_on() {
    let root = tempfile::tempdir().expect("temp dir");
    let (logs, model, data) = (
        root.path().join("logs"),
        root.path().join("model"),
        root.path().join("data"),
    );
    std::fs::create_dir_all(&logs).expect("logs dir");
    write_logs(&logs);
    write_model(&model);
    let data_arg = data.to_str().expect("utf-8");
    let installed = esker_ok(&[
        "model",
        "install",
        "--data-dir",
        data_arg,
        "--from-file",
        model.to_str().unwrap(),
    ]);
    assert!(installed.contains("local static model"), "{installed}");
    let indexed = esker_ok(&["index", "--data-dir", data_arg, logs.to_str().unwrap()]);
    assert!(
        indexed.contains("semantic leg: 4 events embedded"),
        "{indexed}"
    );

    let lexical = EskerClient::start_with(
        &data,
        &["--no-index", "--semantic", "off"],
        "/nonexistent-esker-test-home",
    )
    .await;
    assert!(
        sessions_found(&lexical, PARAPHRASE).await.is_empty(),
        "no word in common"
    );
    let hybrid = EskerClient::start_with(
        &data,
        &["--no-index", "--semantic", "on"],
        "/nonexistent-esker-test-home",
    )
    .await;
    let found = sessions_found(&hybrid, PARAPHRASE).await;
    assert_eq!(
        found.first().map(String::as_str),
        Some(AUTH_SESSION),
        "{found:?}"
    );
    // Words still decide for an exact word, and a scope still holds.
    assert_eq!(sessions_found(&hybrid, "badges").await, [README_SESSION]);
    let scoped = hybrid
        .search(json!({"query": PARAPHRASE, "within_id": README_SESSION}))
        .await;
    assert!(
        strings_at(&scoped["results"], "/session/id")
            .iter()
            .all(|id| id == README_SESSION)
    );

    // `esker search` takes the same switch.
    let cli = run_esker(&[
        "search",
        "--data-dir",
        data_arg,
        "--semantic",
        "on",
        "--json",
        PARAPHRASE,
    ]);
    assert!(cli.status.success(), "{}", stderr_of(&cli));
    assert!(String::from_utf8_lossy(&cli.stdout).contains(AUTH_SESSION));

    // A second pass embeds nothing again.
    let again = esker_ok(&["index", "--data-dir", data_arg, logs.to_str().unwrap()]);
    assert!(again.contains("0 events embedded (4 already)"), "{again}");
}

#[tokio::test]
async fn without_a_model_the_leg_on_answers_by_words_alone() {
    let root = tempfile::tempdir().expect("temp dir");
    let (logs, data) = (root.path().join("logs"), root.path().join("data"));
    std::fs::create_dir_all(&logs).expect("logs dir");
    write_logs(&logs);
    let indexed = esker_ok(&[
        "index",
        "--data-dir",
        data.to_str().unwrap(),
        logs.to_str().unwrap(),
    ]);
    assert!(!indexed.contains("semantic leg"), "{indexed}");
    let client = EskerClient::start_with(
        &data,
        &["--no-index", "--semantic", "on"],
        "/nonexistent-esker-test-home",
    )
    .await;
    assert!(sessions_found(&client, PARAPHRASE).await.is_empty());
    assert_eq!(sessions_found(&client, "badges").await, [README_SESSION]);
}

/// An OpenAI-compatible `/v1/embeddings` on localhost embedding by [`word_vector`]; counts the
/// texts it embedded.
struct FakeEndpoint {
    url: String,
    texts: Arc<AtomicUsize>,
}

impl FakeEndpoint {
    fn start() -> FakeEndpoint {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/v1", listener.local_addr().expect("address"));
        let texts = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&texts);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let counter = Arc::clone(&counter);
                std::thread::spawn(move || serve_connection(stream, &counter));
            }
        });
        FakeEndpoint { url, texts }
    }
}

/// Answers the requests of one keep-alive connection until the client closes it.
fn serve_connection(stream: TcpStream, texts: &AtomicUsize) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    loop {
        let mut content_length = 0usize;
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                content_length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; content_length];
        reader.read_exact(&mut body).expect("body");
        let request: Value = serde_json::from_slice(&body).expect("json body");
        assert!(
            request_line.starts_with("POST /v1/embeddings"),
            "{request_line}"
        );
        assert_eq!(request["model"], "fake-embed");
        let inputs: Vec<String> = request["input"]
            .as_array()
            .expect("input array")
            .iter()
            .map(|text| text.as_str().expect("text").to_owned())
            .collect();
        texts.fetch_add(inputs.len(), Ordering::SeqCst);
        let data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(index, text)| json!({"object": "embedding", "index": index, "embedding": text_vector(text)}))
            .collect();
        let response = json!({"object": "list", "data": data, "model": "fake-embed"}).to_string();
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            response.len()
        );
        if writer
            .write_all(head.as_bytes())
            .and_then(|()| writer.write_all(response.as_bytes()))
            .is_err()
        {
            return;
        }
    }
}

/// The mean of the known words' vectors (not normalised: esker normalises).
fn text_vector(text: &str) -> Vec<f32> {
    let mut sum = vec![0.0f32; DIM];
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if let Some(vector) = word_vector(&word.to_lowercase()) {
            sum.iter_mut()
                .zip(vector)
                .for_each(|(total, value)| *total += value);
        }
    }
    sum
}

#[tokio::test]
async fn an_embeddings_endpoint_embeds_the_events_and_the_query() {
    let endpoint = FakeEndpoint::start();
    let root = tempfile::tempdir().expect("temp dir");
    let (logs, data) = (root.path().join("logs"), root.path().join("data"));
    std::fs::create_dir_all(&logs).expect("logs dir");
    write_logs(&logs);
    let endpoint_args = [
        "--embeddings-url",
        endpoint.url.as_str(),
        "--embeddings-model",
        "fake-embed",
    ];
    let mut index_args = vec!["index", "--data-dir", data.to_str().unwrap()];
    index_args.extend(endpoint_args);
    index_args.push(logs.to_str().unwrap());
    let indexed = esker_ok(&index_args);
    assert!(
        indexed.contains("semantic leg: 4 events embedded"),
        "{indexed}"
    );
    assert_eq!(endpoint.texts.load(Ordering::SeqCst), 4);
    assert!(data.join("vectors").join("endpoint-fake-embed").is_dir());

    let mut serve_args = vec!["--no-index", "--semantic", "on"];
    serve_args.extend(endpoint_args);
    let client = EskerClient::start_with(&data, &serve_args, "/nonexistent-esker-test-home").await;
    let found = sessions_found(&client, PARAPHRASE).await;
    assert_eq!(
        found.first().map(String::as_str),
        Some(AUTH_SESSION),
        "{found:?}"
    );
    assert_eq!(
        endpoint.texts.load(Ordering::SeqCst),
        5,
        "the query was embedded by the endpoint"
    );
}
