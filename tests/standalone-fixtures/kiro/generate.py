#!/usr/bin/env python3
"""Writes the SQLite stores of tests/it/harnesses/kiro.rs (see README.md for the shapes' sources).

    python3 tests/standalone-fixtures/kiro/generate.py

`stores/kiro-cli/data.sqlite3`: Kiro CLI's `conversations_v2` table (as agentsview's and an
Entire collector's tests create it) holding two conversations, one of them saved under two
directories (the newer row is the conversation). `stores/amazon-q/data.sqlite3`: Amazon Q
Developer CLI's tables as its migrations create them (`conversations`, `state`, `auth_kv`), one
conversation per directory row, plus a row whose value is not JSON and a secret in `auth_kv`
that must never be read. The `value` JSON is the CLI's `ConversationState` as serde writes it
(aws/amazon-q-developer-cli `crates/chat-cli/src/cli/chat/conversation.rs`, `message.rs`,
`parser.rs`).
"""
import json
import os
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = 1_795_000_000_000


def env(cwd):
    return {"env_state": {"operating_system": "linux", "current_working_directory": cwd,
                          "environment_variables": []}}


def prompt(text, cwd, at):
    return {"additional_context": "", "env_context": env(cwd),
            "content": {"Prompt": {"prompt": text}}, "timestamp": at, "images": None}


def results(cwd, *items, cancelled_prompt=None):
    tool_use_results = [
        {"tool_use_id": call_id, "content": content, "status": status}
        for call_id, content, status in items
    ]
    if cancelled_prompt is not None:
        content = {"CancelledToolUses": {"prompt": cancelled_prompt,
                                         "tool_use_results": tool_use_results}}
    else:
        content = {"ToolUseResults": {"tool_use_results": tool_use_results}}
    return {"additional_context": "", "env_context": env(cwd), "content": content,
            "timestamp": None, "images": None}


def response(message_id, text):
    return {"Response": {"message_id": message_id, "content": text}}


def tool_use(message_id, text, *calls):
    return {"ToolUse": {"message_id": message_id, "content": text, "tool_uses": [
        {"id": call_id, "name": name, "orig_name": name, "args": args, "orig_args": args}
        for call_id, name, args in calls]}}


def metadata(message_id, end, model, calls=()):
    return {"request_id": f"req-{message_id}", "message_id": message_id,
            "request_start_timestamp_ms": end - 2000, "stream_end_timestamp_ms": end,
            "time_to_first_chunk": {"secs": 0, "nanos": 800000000}, "time_between_chunks": [],
            "user_prompt_length": 40, "response_size": 120, "chat_conversation_type": None,
            "tool_use_ids_and_names": list(calls), "model_id": model, "message_meta_tags": []}


def state(conversation_id, history, model, summary=None):
    return {"conversation_id": conversation_id, "next_message": None, "history": history,
            "valid_history_range": [0, len(history)], "transcript": [], "tools": {},
            "context_manager": None, "context_message_length": None,
            "latest_summary": summary, "model_info": {"model_name": model, "model_id": model,
                                                      "context_window_tokens": 200000},
            "file_line_tracker": {}, "checkpoint_manager": None, "mcp_enabled": True}


def kiro_osprey(full=True):
    cwd = "/home/dev/src/osprey"
    model = "claude-sonnet-4.5"
    history = [
        {"user": prompt("why is the osprey build slow?", cwd, "2026-11-18T10:00:00+01:00"),
         "assistant": tool_use("m1", "Checking the build timings.",
                               ("tooluse_b1", "execute_bash",
                                {"command": "cargo build --timings", "summary": "timings"})),
         "request_metadata": metadata("m1", T0 + 4000, model)},
        {"user": results(cwd, ("tooluse_b1", [{"Json": {
            "exit_status": "0", "stdout": "osprey-macros 41.2s\nosprey 12.0s", "stderr": ""}}],
                               "Success")),
         "assistant": tool_use("m2", "", ("tooluse_r1", "fs_read",
                                          {"operations": [{"mode": "Line", "path":
                                                           "osprey-macros/src/lib.rs"}]})),
         "request_metadata": metadata("m2", T0 + 9000, model)},
        {"user": results(cwd, ("tooluse_r1", [{"Text": "use syn::*; // 4,000 lines"}],
                               "Success")),
         "assistant": response("m3", "osprey-macros parses every item with full syn: "
                                     "that is 41 of the 53 seconds."),
         "request_metadata": metadata("m3", T0 + 15000, model)},
    ]
    if full:
        history += [
            {"user": prompt("split the macro crate", cwd, "2026-11-18T10:02:00+01:00"),
             "assistant": tool_use("m4", "Writing the new crate.",
                                   ("tooluse_w1", "fs_write",
                                    {"command": "create", "path": "osprey-derive/Cargo.toml",
                                     "file_text": "[package]\nname = \"osprey-derive\"\n"})),
             "request_metadata": metadata("m4", T0 + 130000, model)},
            {"user": results(cwd, ("tooluse_w1",
                                   [{"Text": "Tool use was cancelled by the user"}], "Error"),
                             cancelled_prompt="no, keep one crate"),
             "assistant": response("m5", "Left as one crate."),
             "request_metadata": metadata("m5", T0 + 140000, model)},
        ]
    return state("kiro-conv-osprey", history, model,
                 summary=None)


def kiro_heron():
    cwd = "/home/dev/src/heron"
    history = [
        {"user": prompt("what does heron do?", cwd, "2026-11-19T08:00:00Z"),
         "assistant": response("h1", "heron imports CSV rows into Postgres."),
         "request_metadata": metadata("h1", T0 + 86_400_000, "auto")},
    ]
    return state("kiro-conv-heron", history, "auto",
                 summary=["The user asked what heron does.", metadata("h0", T0, "auto")])


def q_kestrel():
    cwd = "/home/dev/src/kestrel"
    model = "claude-3.7-sonnet"
    history = [
        {"user": prompt("list the migrations", cwd, "2026-11-20T09:00:00Z"),
         "assistant": tool_use("q1", "", ("tooluse_q1", "execute_bash",
                                          {"command": "ls migrations"})),
         "request_metadata": metadata("q1", T0 + 200_000_000, model)},
        {"user": results(cwd, ("tooluse_q1", [{"Json": {
            "exit_status": "2", "stdout": "",
            "stderr": "ls: cannot access 'migrations': No such file or directory"}}],
                               "Success")),
         "assistant": response("q2", "There is no migrations folder in kestrel."),
         "request_metadata": metadata("q2", T0 + 200_004_000, model)},
    ]
    return state("q-conv-kestrel", history, model)


def fresh(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return sqlite3.connect(path)


def kiro_store():
    db = fresh(os.path.join(HERE, "stores", "kiro-cli", "data.sqlite3"))
    db.execute("""CREATE TABLE conversations_v2 (
        key TEXT NOT NULL, conversation_id TEXT NOT NULL, value TEXT NOT NULL,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
        PRIMARY KEY (key, conversation_id))""")
    rows = [
        # The same conversation saved earlier under the parent directory: the older row.
        ("/home/dev/src", "kiro-conv-osprey", kiro_osprey(full=False), T0, T0 + 15000),
        ("/home/dev/src/osprey", "kiro-conv-osprey", kiro_osprey(), T0, T0 + 140000),
        ("/home/dev/src/heron", "kiro-conv-heron", kiro_heron(), T0 + 86_000_000,
         T0 + 86_400_000),
    ]
    for key, conversation_id, value, created, updated in rows:
        db.execute("INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)",
                   (key, conversation_id, json.dumps(value), created, updated))
    db.commit()
    db.close()


def q_store():
    db = fresh(os.path.join(HERE, "stores", "amazon-q", "data.sqlite3"))
    db.execute("CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("CREATE TABLE state (key TEXT PRIMARY KEY, value BLOB)")
    db.execute("CREATE TABLE auth_kv (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO conversations VALUES (?, ?)",
               ("/home/dev/src/kestrel", json.dumps(q_kestrel())))
    db.execute("INSERT INTO conversations VALUES (?, ?)", ("/tmp/broken", "{\"conversation"))
    db.execute("INSERT INTO auth_kv VALUES (?, ?)",
               ("codewhisperer:odic:token", "{\"access_token\": \"SECRET-NEVER-READ\"}"))
    db.commit()
    db.close()


def main():
    kiro_store()
    q_store()


if __name__ == "__main__":
    main()
