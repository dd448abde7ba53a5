//! Warp (`warp`): a home holding `tests/standalone-fixtures/warp/warp.sqlite` at Warp's Linux
//! place (`~/.local/state/warp-terminal/warp.sqlite`), indexed with no PATH. Every count is also
//! taken from the raw rows by this test's own reading: the protobuf `Task` blobs of
//! `agent_tasks` walked with a wire reader written here (a prompt is a message's `user_query`
//! with text, a reply an `agent_output`, reasoning an `agent_reasoning`, a call a `tool_call`, a
//! result a `tool_call_result`, failed when cancelled, when its shell command exited non-zero
//! or when its result carries an `error`), and the `ai_queries` inputs of a conversation with
//! no task. A torn task blob and `conversation_data` that is not JSON are counted warnings; a
//! sub-agent task names its conversation; the conversation's token totals land on its last
//! reply; Warp has no resume command; `esker doctor` lists the store; a task saved again with
//! a new turn adds exactly its events.

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::{
    Counts, assert_no_resume, assert_tools_paired, count, doctor_location, index_home,
    indexed_counts, number, texts,
};
use crate::support::standalone_fixture;

const STORE: &str = ".local/state/warp-terminal/warp.sqlite";
const WARP: &str = "source = 'warp'";
const OSPREY: &str = "5f0c3b1e-0000-4000-8000-00000000a001";
const KESTREL: &str = "5f0c3b1e-0000-4000-8000-00000000b001";
const HERON: &str = "5f0c3b1e-0000-4000-8000-00000000c001";

fn home_with_fixture() -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().expect("temp dir");
    let store = home.path().join(STORE);
    fs::create_dir_all(store.parent().expect("parent")).expect("mkdir");
    fs::copy(standalone_fixture("warp").join("warp.sqlite"), &store).expect("copy store");
    (home, store)
}

// ---- this test's own protobuf wire reading

/// One field: number and either a varint or the bytes of a length-delimited value.
type Field<'a> = (u64, Result<u64, &'a [u8]>);

fn read_varint(buffer: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = buffer.split_first()?;
        *buffer = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The fields of a message (varint and length-delimited only, as Warp's tasks use), `None`
/// when it does not parse.
fn wire(mut buffer: &[u8]) -> Option<Vec<Field<'_>>> {
    let mut fields = Vec::new();
    while !buffer.is_empty() {
        let key = read_varint(&mut buffer)?;
        match key & 7 {
            0 => fields.push((key >> 3, Ok(read_varint(&mut buffer)?))),
            2 => {
                let length = usize::try_from(read_varint(&mut buffer)?).ok()?;
                if length > buffer.len() {
                    return None;
                }
                let (value, rest) = buffer.split_at(length);
                buffer = rest;
                fields.push((key >> 3, Err(value)));
            }
            1 if buffer.len() >= 8 => buffer = &buffer[8..],
            _ => return None,
        }
    }
    Some(fields)
}

fn field<'a>(fields: &[Field<'a>], number: u64) -> Option<&'a [u8]> {
    fields.iter().find_map(|(n, value)| match value {
        Err(bytes) if *n == number => Some(*bytes),
        _ => None,
    })
}

fn int_field(fields: &[Field<'_>], number: u64) -> Option<i64> {
    fields.iter().find_map(|(n, value)| match value {
        Ok(raw) if *n == number => Some(*raw as i64 as i32 as i64),
        _ => None,
    })
}

/// Counts one decoded task's messages into `counts`.
fn count_task(task: &[Field<'_>], counts: &mut Counts) {
    for (number, value) in task {
        let (5, Err(message)) = (number, value) else {
            continue;
        };
        let message = wire(message).expect("message");
        let member = message
            .iter()
            .find(|(n, _)| matches!(n, 2 | 3 | 4 | 5 | 15));
        let Some((kind, Err(body))) = member else {
            continue;
        };
        let body = wire(body).expect("body");
        match kind {
            2 => counts.prompts += i64::from(field(&body, 1).is_some_and(|q| !q.is_empty())),
            3 => counts.replies += 1,
            15 => counts.reasoning += 1,
            4 => counts.calls += 1,
            _ => {
                counts.results += 1;
                // The result's member: the first field other than the call id (1) and context.
                let Some((result, Err(detail))) = body.iter().find(|(n, _)| *n != 1 && *n != 11)
                else {
                    continue;
                };
                let detail = wire(detail).expect("result");
                let failed = match result {
                    14 => true,
                    2 => field(&detail, 5)
                        .and_then(wire)
                        .and_then(|finished| int_field(&finished, 2))
                        .is_some_and(|code| code != 0),
                    4 | 23 => false,
                    _ => field(&detail, 2).is_some(),
                };
                counts.failed += i64::from(failed);
            }
        }
    }
}

/// This test's reading of the raw store, and the torn rows it met.
fn raw_counts(store: &Path) -> (Counts, i64) {
    let connection =
        Connection::open_with_flags(store, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open store");
    let mut counts = Counts::default();
    let mut torn = 0;
    let ids: Vec<String> = connection
        .prepare(
            "SELECT conversation_id FROM agent_conversations UNION \
             SELECT conversation_id FROM ai_queries",
        )
        .expect("prepare")
        .query_map([], |row| row.get(0))
        .expect("query")
        .map(|id| id.expect("id"))
        .collect();
    for id in ids {
        counts.sessions += 1;
        let blobs: Vec<Vec<u8>> = connection
            .prepare("SELECT task FROM agent_tasks WHERE conversation_id = ?1")
            .expect("prepare")
            .query_map([&id], |row| row.get(0))
            .expect("query")
            .map(|blob| blob.expect("blob"))
            .collect();
        let mut roots = 0;
        for blob in &blobs {
            let Some(task) = wire(blob) else {
                torn += 1;
                continue;
            };
            let sub_agent = field(&task, 3).is_some();
            roots += i64::from(!sub_agent);
            counts.sessions += i64::from(sub_agent);
            count_task(&task, &mut counts);
        }
        // A conversation with no readable root task: its prompts are its queries'.
        if roots == 0 {
            let inputs: Vec<String> = connection
                .prepare("SELECT input FROM ai_queries WHERE conversation_id = ?1")
                .expect("prepare")
                .query_map([&id], |row| row.get(0))
                .expect("query")
                .map(|input| input.expect("input"))
                .collect();
            for input in inputs {
                let input: Value = serde_json::from_str(&input).expect("input JSON");
                counts.prompts += input
                    .as_array()
                    .expect("inputs")
                    .iter()
                    .filter(|item| item["Query"]["text"].as_str().is_some())
                    .count() as i64;
            }
        }
    }
    let bad_data: i64 = connection
        .query_row(
            "SELECT count(*) FROM agent_conversations WHERE json_valid(conversation_data) = 0",
            [],
            |row| row.get(0),
        )
        .expect("count");
    (counts, torn + bad_data)
}

#[test]
fn warp_conversations_are_read_from_a_home_with_exact_counts() {
    let (home, store) = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    let (raw, warnings) = raw_counts(&store);
    assert_eq!(
        raw,
        Counts {
            sessions: 5,
            prompts: 6,
            replies: 6,
            reasoning: 1,
            calls: 8,
            results: 8,
            failed: 3,
        },
        "the fixture holds what this test expects"
    );
    assert_eq!(warnings, 2, "one torn task, one conversation_data not JSON");
    for expected in [
        "formats: warp_db=1;".to_string(),
        "sessions: 5;".to_string(),
        format!("parser warnings: {warnings};"),
    ] {
        assert!(stderr.contains(&expected), "{expected}: {stderr}");
    }
    assert_eq!(
        indexed_counts(dir, WARP),
        raw,
        "every message is indexed once"
    );
    assert_tools_paired(dir);

    assert_eq!(
        texts(
            dir,
            "SELECT native_id || ' ' || coalesce(title, '-') || ' ' || coalesce(cwd, '-') || ' ' \
             || coalesce(model, '-') FROM sessions ORDER BY native_id"
        ),
        [
            "5f0c3b1e-0000-4000-8000-00000000a001 Fix the osprey nest count /home/dev/osprey \
             claude-4-sonnet",
            "5f0c3b1e-0000-4000-8000-00000000a001/task-osprey-search Find where nests are counted \
             /home/dev/osprey claude-4-sonnet",
            "5f0c3b1e-0000-4000-8000-00000000b001 what is the kestrel CSV header? \
             /home/dev/kestrel gpt-5",
            "5f0c3b1e-0000-4000-8000-00000000c001 total the heron survey /home/dev/heron \
             claude-3-7-sonnet",
            "5f0c3b1e-0000-4000-8000-00000000d001 Plover tally /home/dev/plover -",
        ]
    );
    assert_eq!(
        number(
            dir,
            &format!(
                "SELECT count(*) FROM sessions WHERE native_id = '{OSPREY}/task-osprey-search' \
                 AND parent_session_id = (SELECT session_id FROM sessions \
                 WHERE native_id = '{OSPREY}')"
            )
        ),
        Some(1),
        "the sub-agent task links to its conversation"
    );
    // Token totals: warp + byok + custom endpoint tokens over every model, on the last reply.
    assert_eq!(
        texts(
            dir,
            "SELECT s.native_id || ' ' || e.type || ' ' || CAST(e.total_tokens AS VARCHAR) \
             FROM events e JOIN sessions s ON e.session_id = s.session_id \
             WHERE e.total_tokens IS NOT NULL ORDER BY s.native_id"
        ),
        [
            format!("{OSPREY} assistant_response 12800"),
            format!("{KESTREL} assistant_response 525"),
        ]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT tool_name || ' ' || coalesce(CAST(exit_code AS VARCHAR), '-') || ' ' || text \
             FROM events \
             WHERE type = 'tool_response' AND subtype = 'error' ORDER BY timestamp"
        ),
        [
            "read_files - nests.lock: no such file",
            "run_shell_command 1 1 failed, 4 passed",
            "run_shell_command - cancelled",
        ]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT tool_name FROM events WHERE type = 'tool_call' ORDER BY timestamp"
        ),
        [
            "run_shell_command",
            "read_files",
            "subagent",
            "grep",
            "apply_file_diffs",
            "run_shell_command",
            "read_csv_header",
            "run_shell_command",
        ]
    );
    assert_eq!(
        count(
            dir,
            "SELECT count(*) FROM events WHERE type = 'compaction' AND text LIKE '%id,wing,weight%'"
        ),
        1,
        "the conversation summary is a compaction"
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT e.text FROM events e JOIN sessions s ON e.session_id = s.session_id \
                 WHERE s.native_id = '{HERON}' ORDER BY e.timestamp"
            )
        ),
        ["total the heron survey", "and per site?"],
        "a conversation with no task is read from ai_queries"
    );

    let session = texts(
        dir,
        &format!("SELECT session_id FROM sessions WHERE native_id = '{OSPREY}'"),
    );
    assert_no_resume(home.path(), dir, &session[0]);
    let location = doctor_location(home.path(), dir, &store);
    assert_eq!(location["harness"], "warp", "{location:#}");
    assert_eq!(location["exists"].as_bool(), Some(true), "{location:#}");
}

/// A `Message` appended to a `Task` blob: `messages` (5) is repeated, so the bytes of one more
/// field 5 append a message.
fn appended_message(id: &str, seconds: u64, member: u8, text: &str) -> Vec<u8> {
    fn ld(number: u8, payload: &[u8]) -> Vec<u8> {
        assert!(payload.len() < 128, "short fields only");
        let mut out = vec![(number << 3) | 2, payload.len() as u8];
        out.extend_from_slice(payload);
        out
    }
    let mut seconds_varint = Vec::new();
    let mut value = seconds;
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            seconds_varint.push(byte);
            break;
        }
        seconds_varint.push(byte | 0x80);
    }
    let mut timestamp = vec![0x08];
    timestamp.extend(seconds_varint);
    let body = [
        ld(1, id.as_bytes()),
        ld(14, &timestamp),
        ld(member, &ld(1, text.as_bytes())),
    ]
    .concat();
    ld(5, &body)
}

#[test]
fn a_task_saved_again_with_a_new_turn_adds_exactly_its_events() {
    let (home, store) = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let again = index_home(home.path(), data.path());
    assert!(again.contains("events: 0 new"), "{again}");
    let before = count(
        data.path(),
        &format!(
            "SELECT count(*) FROM events e JOIN sessions s ON e.session_id = s.session_id \
             WHERE s.native_id = '{KESTREL}'"
        ),
    );

    let connection = Connection::open(&store).expect("open store");
    let turn = [
        appended_message("ks-09", 1_795_003_700, 2, "and the row count?"),
        appended_message("ks-10", 1_795_003_701, 3, "It has 212 rows."),
    ]
    .concat();
    connection
        .execute(
            "UPDATE agent_tasks SET task = task || ?1 WHERE task_id = 'task-kestrel-root'",
            [turn],
        )
        .expect("save the task");
    connection
        .execute(
            "INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, \
             working_directory, output_status, model_id) VALUES ('ex-ks-2', ?1, \
             '2026-11-18 12:08:20.000000', \
             '[{\"Query\":{\"text\":\"and the row count?\",\"context\":[],\"referenced_attachments\":{}}}]', \
             '/home/dev/kestrel', '\"Completed\"', 'auto')",
            [KESTREL],
        )
        .expect("save the query");
    drop(connection);

    let saved = index_home(home.path(), data.path());
    assert!(saved.contains("events: 2 new"), "{saved}");
    let one_shot = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), one_shot.path());
    let snapshot = |dir: &Path| {
        texts(
            dir,
            "SELECT event_id || ' ' || type || ' ' || \
             coalesce(CAST(total_tokens AS VARCHAR), '-') || ' ' || text \
             FROM events ORDER BY event_id",
        )
    };
    assert_eq!(
        snapshot(data.path()),
        snapshot(one_shot.path()),
        "re-reading equals indexing once"
    );
    assert_eq!(
        count(
            data.path(),
            &format!(
                "SELECT count(*) FROM events e JOIN sessions s ON e.session_id = s.session_id \
                 WHERE s.native_id = '{KESTREL}'"
            ),
        ),
        before + 2
    );
    assert_eq!(
        count(
            data.path(),
            &format!("SELECT turn_count FROM sessions WHERE native_id = '{KESTREL}'")
        ),
        2
    );
    let last = index_home(home.path(), data.path());
    assert!(last.contains("events: 0 new"), "{last}");
}

#[test]
fn a_torn_task_is_skipped_with_a_warning_and_its_conversation_kept() {
    let (home, store) = home_with_fixture();
    let connection = Connection::open(&store).expect("open store");
    // Tear the osprey root task: its conversation keeps its sub-agent's session and warns.
    connection
        .execute(
            "UPDATE agent_tasks SET task = substr(task, 1, length(task) - 5) \
             WHERE task_id = 'task-osprey-root'",
            [],
        )
        .expect("tear");
    drop(connection);
    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_home(home.path(), data.path());
    assert!(stderr.contains("parser warnings: 3;"), "{stderr}");
    let (raw, warnings) = raw_counts(&store);
    assert_eq!(warnings, 3);
    assert_eq!(indexed_counts(data.path(), WARP), raw);
}
