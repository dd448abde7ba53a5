#!/usr/bin/env python3
"""Writes the Warp store of tests/it/harnesses/warp.rs, `warp.sqlite`, in Warp's own formats.

    python3 tests/standalone-fixtures/warp/generate.py

The schema is made by running, in order, the `up.sql` of every Warp migration that shapes the
three tables esker reads (warpdotdev/warp `crates/persistence/migrations/`, listed in
MIGRATIONS below, copied verbatim), so the tables, triggers and indexes are Warp's own.
Rows are written the way Warp's writer writes them:

- `ai_queries` as `app/src/persistence/block_list.rs` `NewAIQuery` does: `input` is
  `serde_json::to_string(Vec<PersistedAIInputType>)` (`[{"Query": {"text", "context",
  "referenced_attachments"}}]`), `output_status` the JSON of `AIQueryHistoryOutputStatus`
  (`"Completed"` with its quotes), `start_ts` a UTC `NaiveDateTime` as diesel writes it.
- `agent_conversations` as `app/src/persistence/agent.rs` `upsert_agent_conversation` does:
  `conversation_data` the JSON of `AgentConversationData` (`crates/persistence/src/model.rs`),
  `summary` the JSON of `AgentConversationSummary`.
- `agent_tasks.task` as `task.encode_to_vec()` of a `warp.multi_agent.v1.Task`, encoded here by
  hand with the field numbers of warpdotdev/warp-proto-apis `apis/multi_agent/v1/task.proto`
  (and `attachment.proto`, `file_content.proto`, `input_context.proto`).

No real warp.sqlite is public (it also holds the user's terminal blocks and command history);
every conversation below is made up.
"""
import json
import os
import sqlite3
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# warpdotdev/warp crates/persistence/migrations/<name>/up.sql, verbatim, in order.
MIGRATIONS = [
    ("2024-08-05-145004_add_ai_exchanges_table", """
CREATE TABLE ai_exchanges (
  id INTEGER PRIMARY KEY NOT NULL,
  start_ts DATETIME NOT NULL,
  -- FOREIGN KEY REFERENCES pane_leaves(uuid) but we don't mark it as a foreign key because it causes problems with cascading deletes.
  pane_leaf_uuid BLOB NOT NULL,
  output TEXT NOT NULL,
  input TEXT NOT NULL,
  working_directory TEXT
);
"""),
    ("2024-08-16-205602_add_ai_ids", """
CREATE TABLE ai_exchanges_new_cols (
  id INTEGER PRIMARY KEY NOT NULL,
  exchange_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  start_ts DATETIME NOT NULL,
  -- FOREIGN KEY REFERENCES pane_leaves(uuid) but we don't mark it as a foreign key because it causes problems with cascading deletes.
  pane_leaf_uuid BLOB NOT NULL,
  output TEXT NOT NULL,
  input TEXT NOT NULL,
  working_directory TEXT
);

DROP TABLE ai_exchanges;
ALTER TABLE ai_exchanges_new_cols RENAME TO ai_exchanges;
"""),
    ("2024-08-20-201322_split_ai_exchanges_table", """
CREATE TABLE ai_blocks (
    id INTEGER PRIMARY KEY NOT NULL,
    exchange_id TEXT NOT NULL,
    -- Would be marked FOREIGN KEY REFERENCES pane_leaves(uuid) but we don't because we can't enforce it properly when handling pane removal.
    pane_leaf_uuid BLOB NOT NULL,
    output TEXT NOT NULL,
    FOREIGN KEY(exchange_id) REFERENCES ai_exchanges(exchange_id)
);

ALTER TABLE ai_exchanges DROP COLUMN pane_leaf_uuid;
ALTER TABLE ai_exchanges DROP COLUMN output;
ALTER TABLE ai_exchanges ADD COLUMN output_status TEXT NOT NULL;
ALTER TABLE ai_exchanges RENAME TO ai_queries;
"""),
    ("2024-08-22-182702_ai_exchange_id_unique_index", """
CREATE UNIQUE INDEX ux_ai_queries_exchange_id ON ai_queries(exchange_id);
CREATE UNIQUE INDEX ux_ai_blocks_exchange_id ON ai_blocks(exchange_id);
"""),
    ("2025-01-09-160139_ai_blocks_is_hidden", """
ALTER TABLE ai_blocks ADD is_hidden BOOLEAN NOT NULL DEFAULT FALSE;
"""),
    ("2025-01-22-070545_add_model_id_to_ai_queries", """
ALTER TABLE ai_queries ADD COLUMN model_id TEXT NOT NULL DEFAULT '';
"""),
    ("2025-02-24-155225_add_planning_model_id_to_ai_queries", """
ALTER TABLE ai_queries ADD COLUMN planning_model_id TEXT NOT NULL DEFAULT '';
"""),
    ("2025-05-07-193736_add_coding_model_id_to_ai_queries", """
ALTER TABLE ai_queries ADD COLUMN coding_model_id TEXT NOT NULL DEFAULT '';
"""),
    ("2025-06-09-013710_create_agent_conversations_table", """
CREATE TABLE agent_conversations (
    id INTEGER PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL,
    active_task_id TEXT,
    conversation_data TEXT NOT NULL,
    last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TRIGGER update_last_modified_at_for_agent_conversations AFTER
UPDATE ON agent_conversations FOR EACH ROW WHEN NEW.last_modified_at IS OLD.last_modified_at BEGIN
UPDATE agent_conversations
SET
    last_modified_at = CURRENT_TIMESTAMP
WHERE
    id = OLD.id;

END;

CREATE UNIQUE INDEX ux_agent_conversations_conversation_id ON agent_conversations (conversation_id);

CREATE TABLE agent_tasks (
    id INTEGER PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    task BLOB NOT NULL,
    last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    FOREIGN KEY (conversation_id) REFERENCES agent_conversations (conversation_id)
);

CREATE TRIGGER update_last_modified_at_for_agent_tasks AFTER
UPDATE ON agent_tasks FOR EACH ROW WHEN NEW.last_modified_at IS OLD.last_modified_at BEGIN
UPDATE agent_tasks
SET
    last_modified_at = CURRENT_TIMESTAMP
WHERE
    id = OLD.id;

END;

CREATE UNIQUE INDEX ux_agent_tasks_task_id ON agent_tasks (task_id);
"""),
    ("2025-09-30-013004_drop_active_task_id_from_conversations", """
ALTER TABLE agent_conversations DROP COLUMN active_task_id;
"""),
    ("2025-11-19-224140_remove_persisted_ai_blocks", """
DROP TABLE ai_blocks;
"""),
    ("2026-07-07-000000_add_summary_to_agent_conversations", """
ALTER TABLE agent_conversations ADD COLUMN summary TEXT;
"""),
]


# --- protobuf wire encoding (proto3 / edition 2023 defaults: no field written at its zero value)

def varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int32/int64 negatives are ten-byte varints
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def ld(number: int, payload: bytes) -> bytes:
    return key(number, 2) + varint(len(payload)) + payload


def s(number: int, text: str) -> bytes:
    return ld(number, text.encode()) if text else b""


def v(number: int, value: int) -> bytes:
    return key(number, 0) + varint(value) if value else b""


def msg(number: int, *parts: bytes) -> bytes:
    return ld(number, b"".join(parts))


def double(number: int, value: float) -> bytes:
    return key(number, 1) + struct.pack("<d", value)


def timestamp(seconds: int) -> bytes:
    # google.protobuf.Timestamp {seconds = 1, nanos = 2}
    return msg(14, v(1, seconds), v(2, 250_000_000))


def message(msg_id, task_id, seconds, body: bytes) -> bytes:
    # Message {id = 1, task_id = 11, request_id = 13, timestamp = 14, oneof message}
    return msg(5, s(1, msg_id), s(11, task_id), s(13, "req-" + msg_id), timestamp(seconds), body)


def user_query(text, pwd=None):
    # UserQuery {query = 1, context = 2: InputContext {directory = 1: {pwd = 1, home = 2}}}
    context = msg(2, msg(1, s(1, pwd), s(2, "/home/dev"))) if pwd else b""
    return msg(2, s(1, text), context)


def agent_output(text):
    return msg(3, s(1, text))


def reasoning(text):
    # AgentReasoning {reasoning = 1, finished_duration = 2}
    return msg(15, s(1, text), msg(2, v(1, 2)))


def model_used(model_id, name):
    return msg(25, s(1, model_id), s(2, name))


def tool_call(call_id, number, *fields):
    # ToolCall {tool_call_id = 1, oneof tool}
    return msg(4, s(1, call_id), msg(number, *fields))


def tool_result(call_id, number, *fields, pwd=None):
    # ToolCallResult {tool_call_id = 1, context = 11, oneof result}
    context = msg(11, msg(1, s(1, pwd))) if pwd else b""
    return msg(5, s(1, call_id), context, msg(number, *fields))


def shell_finished(command, output, exit_code, command_id):
    # RunShellCommandResult {command = 3, command_finished = 5: {output = 1, exit_code = 2,
    # command_id = 3}}
    return (s(3, command), msg(5, s(1, output), v(2, exit_code), s(3, command_id)))


def struct_value(obj) -> bytes:
    # google.protobuf.Struct {fields = 1: map<string, Value>}; Value {string_value = 3,
    # number_value = 2, bool_value = 4}
    out = b""
    for name, value in obj.items():
        if isinstance(value, bool):
            encoded = key(4, 0) + varint(int(value))
        elif isinstance(value, (int, float)):
            encoded = double(2, float(value))
        else:
            encoded = ld(3, str(value).encode())
        out += msg(1, s(1, name), ld(2, encoded))
    return out


def task(task_id, description, messages, parent=None):
    # Task {id = 1, description = 2, dependencies = 3: {parent_task_id = 1}, messages = 5}
    deps = msg(3, s(1, parent)) if parent else b""
    return s(1, task_id) + s(2, description) + deps + b"".join(messages)


def ai_input(text):
    return json.dumps([{"Query": {"text": text, "context": [], "referenced_attachments": {}}}])


def usage(model_id, warp=0, byok=0, custom=0):
    return {"model_id": model_id, "warp_tokens": warp, "byok_tokens": byok,
            "custom_endpoint_tokens": custom,
            "warp_token_usage_by_category": {"primary_agent": warp} if warp else {},
            "byok_token_usage_by_category": {"primary_agent": byok} if byok else {},
            "custom_endpoint_token_usage_by_category": {}}


def conversation_data(token, tokens, **extra):
    data = {"server_conversation_token": token,
            "conversation_usage_metadata": {
                "was_summarized": False, "context_window_usage": 0.12, "credits_spent": 3.0,
                "platform_credits_spent": 0.0, "credits_spent_for_last_block": 1.0,
                "token_usage": tokens,
                "tool_usage_metadata": {"run_command_stats": {"count": 2, "commands_executed": 2}},
                "context_window_segments": []}}
    data.update(extra)
    return json.dumps(data)


OSPREY = "5f0c3b1e-0000-4000-8000-00000000a001"
OSPREY_ROOT = "task-osprey-root"
OSPREY_SUB = "task-osprey-search"
KESTREL = "5f0c3b1e-0000-4000-8000-00000000b001"
KESTREL_ROOT = "task-kestrel-root"
HERON = "5f0c3b1e-0000-4000-8000-00000000c001"
PLOVER = "5f0c3b1e-0000-4000-8000-00000000d001"
PLOVER_ROOT = "task-plover-root"

T0 = 1_795_000_000  # 2026-11-18T11:06:40Z


def osprey_tasks():
    root = task(OSPREY_ROOT, "Fix the osprey nest count", [
        message("os-01", OSPREY_ROOT, T0, user_query("why does the osprey nest count drift between runs?", "/home/dev/osprey")),
        message("os-02", OSPREY_ROOT, T0 + 2, model_used("claude-4-sonnet", "Claude Sonnet 4")),
        message("os-03", OSPREY_ROOT, T0 + 3, reasoning("Run the counter twice and compare.")),
        message("os-04", OSPREY_ROOT, T0 + 4, agent_output("Let me run the counter twice.")),
        message("os-05", OSPREY_ROOT, T0 + 5, tool_call("tc-os-1", 2, s(1, "python count.py && python count.py"), v(7, 1))),
        message("os-06", OSPREY_ROOT, T0 + 9, tool_result("tc-os-1", 2, *shell_finished("python count.py && python count.py", "41 nests\n43 nests", 0, "cmd-1"), pwd="/home/dev/osprey")),
        message("os-07", OSPREY_ROOT, T0 + 10, tool_call("tc-os-2", 5, msg(1, s(1, "osprey/nests.lock")))),
        message("os-08", OSPREY_ROOT, T0 + 11, tool_result("tc-os-2", 5, msg(2, s(1, "nests.lock: no such file")))),
        message("os-09", OSPREY_ROOT, T0 + 12, tool_call("tc-os-3", 19, s(1, OSPREY_SUB), s(2, "find where nests are counted"))),
        message("os-10", OSPREY_ROOT, T0 + 20, tool_result("tc-os-3", 23, s(1, "count.py builds a set of nest ids"))),
        message("os-11", OSPREY_ROOT, T0 + 21, agent_output("The count reads an unordered set; sort the ids first.")),
        message("os-12", OSPREY_ROOT, T0 + 22, msg(6, s(1, "opaque-server-event"))),
        message("os-13", OSPREY_ROOT, T0 + 60, user_query("sort them then", "/home/dev/osprey")),
        message("os-14", OSPREY_ROOT, T0 + 62, tool_call("tc-os-4", 6, s(1, "Sort nest ids"), msg(2, s(1, "count.py"), s(2, "ids = set(a)"), s(3, "ids = sorted(set(a))")))),
        message("os-15", OSPREY_ROOT, T0 + 63, tool_result("tc-os-4", 6, msg(1, msg(2, msg(1, s(1, "count.py"), s(2, "ids = sorted(set(a))")))))),
        message("os-16", OSPREY_ROOT, T0 + 64, tool_call("tc-os-5", 2, s(1, "pytest -q"))),
        message("os-17", OSPREY_ROOT, T0 + 70, tool_result("tc-os-5", 2, *shell_finished("pytest -q", "1 failed, 4 passed", 1, "cmd-2"))),
        message("os-18", OSPREY_ROOT, T0 + 71, agent_output("Sorted; one test still expects the old order.")),
    ])
    sub = task(OSPREY_SUB, "Find where nests are counted", [
        message("ss-01", OSPREY_SUB, T0 + 13, tool_call("tc-ss-1", 9, s(1, "nest"), s(2, "osprey"))),
        message("ss-02", OSPREY_SUB, T0 + 14, tool_result("tc-ss-1", 9, msg(1, msg(1, s(1, "osprey/count.py"), msg(2, v(1, 3)))))),
        message("ss-03", OSPREY_SUB, T0 + 15, agent_output("count.py builds a set of nest ids.")),
    ], parent=OSPREY_ROOT)
    return [(OSPREY_ROOT, root), (OSPREY_SUB, sub)]


def kestrel_tasks():
    root = task(KESTREL_ROOT, "", [
        message("ks-01", KESTREL_ROOT, T0 + 3600, user_query("what is the kestrel CSV header?", "/home/dev/kestrel")),
        message("ks-02", KESTREL_ROOT, T0 + 3601, model_used("gpt-5", "GPT-5")),
        message("ks-03", KESTREL_ROOT, T0 + 3602, tool_call("tc-ks-1", 12, s(1, "read_csv_header"), msg(2, struct_value({"path": "kestrel.csv", "rows": 1})), s(3, "csv-server"))),
        message("ks-04", KESTREL_ROOT, T0 + 3603, tool_result("tc-ks-1", 16, msg(1, msg(1, msg(1, s(1, "id,wing,weight")))))),
        message("ks-05", KESTREL_ROOT, T0 + 3604, tool_call("tc-ks-2", 2, s(1, "wc -l kestrel.csv"))),
        message("ks-06", KESTREL_ROOT, T0 + 3605, tool_result("tc-ks-2", 14, b"")),
        message("ks-07", KESTREL_ROOT, T0 + 3606, msg(16, msg(1, s(1, "The user asked for the kestrel CSV header; it is id,wing,weight."), v(2, 40)))),
        message("ks-08", KESTREL_ROOT, T0 + 3607, agent_output("The header is `id,wing,weight`.")),
    ])
    return [(KESTREL_ROOT, root)]


def plover_tasks():
    root = task(PLOVER_ROOT, "Plover tally", [
        message("pl-01", PLOVER_ROOT, T0 + 7200, user_query("tally the plovers", "/home/dev/plover")),
        message("pl-02", PLOVER_ROOT, T0 + 7201, agent_output("There are 12 plovers.")),
    ])
    return [(PLOVER_ROOT, root), ("task-plover-torn", b"\x0a\x10task-plo\xff\xff\xff")]


def main():
    path = os.path.join(HERE, "warp.sqlite")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    for _, sql in MIGRATIONS:
        db.executescript(sql)

    def conversation(conv_id, data, modified, summary=None):
        db.execute("INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at, summary) VALUES (?, ?, ?, ?)",
                   (conv_id, data, modified, summary))

    def tasks(conv_id, rows, modified):
        for task_id, blob in rows:
            db.execute("INSERT INTO agent_tasks (conversation_id, task_id, task, last_modified_at) VALUES (?, ?, ?, ?)",
                       (conv_id, task_id, blob, modified))

    def query(exchange, conv_id, start, text, cwd, status, model):
        db.execute("INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (exchange, conv_id, start, ai_input(text), cwd, json.dumps(status), model))

    conversation(OSPREY, conversation_data("srv-osprey", [usage("claude-4-sonnet", warp=12000), usage("gpt-5-nano", warp=800)]),
                 "2026-11-18 07:07:51",
                 json.dumps({"initial_query": "why does the osprey nest count drift between runs?",
                             "title": "Fix the osprey nest count",
                             "initial_working_directory": "/home/dev/osprey", "is_restorable": True}))
    tasks(OSPREY, osprey_tasks(), "2026-11-18 07:07:51")
    query("ex-os-1", OSPREY, "2026-11-18 07:06:40.120000", "why does the osprey nest count drift between runs?", "/home/dev/osprey", "Completed", "claude-4-sonnet")
    query("ex-os-2", OSPREY, "2026-11-18 07:07:40.500000", "sort them then", "/home/dev/osprey", "Completed", "claude-4-sonnet")

    conversation(KESTREL, conversation_data("srv-kestrel", [usage("gpt-5", byok=500, custom=25)]), "2026-11-18 08:06:47")
    tasks(KESTREL, kestrel_tasks(), "2026-11-18 08:06:47")
    query("ex-ks-1", KESTREL, "2026-11-18 08:06:40.000000", "what is the kestrel CSV header?", "/home/dev/kestrel", "Completed", "auto")

    # Heron is older than agent_conversations (or was evicted from it): ai_queries alone.
    query("ex-he-1", HERON, "2025-03-02 09:00:00.000000", "total the heron survey", "/home/dev/heron", "Completed", "claude-3-7-sonnet")
    query("ex-he-2", HERON, "2025-03-02 09:05:00.000000", "and per site?", "/home/dev/heron", "Failed", "claude-3-7-sonnet")

    # Plover: conversation_data that is not JSON and one torn task blob, beside a good task.
    conversation(PLOVER, "{not json", "2026-11-18 09:06:42")
    tasks(PLOVER, plover_tasks(), "2026-11-18 09:06:42")
    query("ex-pl-1", PLOVER, "2026-11-18 09:06:40.000000", "tally the plovers", "/home/dev/plover", "Completed", "")

    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    main()
