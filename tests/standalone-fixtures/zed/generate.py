#!/usr/bin/env python3
"""Writes the Zed thread stores of tests/it/harnesses/zed.rs, in Zed's own formats.

    python3 tests/standalone-fixtures/zed/generate.py

`linux/threads.db` has the table as Zed creates it today (`crates/agent/src/db.rs`: the five
original columns, then `parent_id`, `folder_paths`, `folder_paths_order`, `created_at` added by
ALTER TABLE) and holds three threads of the current agent (document version 0.3.0, zstd level 3
like Zed's `save_thread_sync`) and one row whose zstd frame is torn. `macos/threads.db` has only
the five original columns, as a store an older Zed wrote, and holds one thread of the earlier
agent (version 0.2.0, `crates/agent/src/legacy_thread.rs`) stored as plain `json`. Needs the
`zstd` command (Python's standard library has no zstd).
"""
import json
import os
import sqlite3
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def zstd(data: bytes) -> bytes:
    return subprocess.run(
        ["zstd", "-q", "-3", "-c"], input=data, check=True, capture_output=True
    ).stdout


def user(msg_id, *content):
    return {"User": {"id": msg_id, "content": list(content)}}


def agent(content, results=None):
    return {"Agent": {"content": content, "tool_results": results or {}, "reasoning_details": None}}


def tool_use(use_id, name, payload):
    return {"ToolUse": {"id": use_id, "name": name, "raw_input": json.dumps(payload),
                        "input": payload, "is_input_complete": True, "thought_signature": None}}


def result(use_id, name, text, is_error=False, output=None):
    return {"tool_use_id": use_id, "tool_name": name, "is_error": is_error,
            "content": {"Text": text}, "output": output}


# Two requests: a mention, thinking, a failed and a successful tool call, replies; a Resume.
OSPREY = {
    "version": "0.3.0",
    "title": "Osprey nest count drifts",
    "updated_at": "2026-11-20T09:04:10.120+00:00",
    "detailed_summary": None,
    "messages": [
        user("a1f0c2d4-0001-4b6e-9d0a-5c1e2f3a4b01",
             {"Text": "why does the osprey nest count drift between runs?"},
             {"Mention": {"uri": {"File": {"abs_path": "/home/dev/osprey/count.py"}},
                          "content": "def count(nests): ..."}}),
        agent([{"Thinking": {"text": "Run the counter twice and diff.", "signature": "sig-1"}},
               {"Text": "Let me run it twice."},
               tool_use("toolu_osprey_1", "terminal", {"command": "python count.py", "cd": "osprey"}),
               tool_use("toolu_osprey_2", "read_file", {"path": "osprey/nests.lock"})],
              {"toolu_osprey_1": result("toolu_osprey_1", "terminal", "41 nests\n43 nests"),
               "toolu_osprey_2": result("toolu_osprey_2", "read_file",
                                        "nests.lock: no such file", is_error=True)}),
        agent([{"Text": "The count reads an unordered set; sort the ids before counting."}]),
        user("a1f0c2d4-0002-4b6e-9d0a-5c1e2f3a4b02", {"Text": "sort them then"}),
        agent([tool_use("toolu_osprey_3", "edit_file",
                        {"path": "osprey/count.py", "mode": "edit", "display_description": "sort"})],
              {"toolu_osprey_3": {"tool_use_id": "toolu_osprey_3", "tool_name": "edit_file",
                                  "is_error": False, "content": "Edited osprey/count.py",
                                  "output": {"diff": "-ids = set(a)\n+ids = sorted(set(a))"}}}),
        agent([{"Text": "Sorted; both runs now count 42 nests."}]),
        "Resume",
    ],
    "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": "/home/dev/osprey", "git_state": None}],
                                 "unsaved_buffer_paths": [], "timestamp": "2026-11-20T09:00:00Z"},
    "cumulative_token_usage": {"input_tokens": 2300, "output_tokens": 260, "cache_read_input_tokens": 9000},
    "request_token_usage": {
        "a1f0c2d4-0001-4b6e-9d0a-5c1e2f3a4b01": {"input_tokens": 1200, "output_tokens": 180,
                                                 "cache_creation_input_tokens": 300,
                                                 "cache_read_input_tokens": 4000},
        "a1f0c2d4-0002-4b6e-9d0a-5c1e2f3a4b02": {"input_tokens": 1100, "output_tokens": 80,
                                                 "cache_read_input_tokens": 5000},
    },
    "model": {"provider": "zed.dev", "model": "claude-sonnet-4-5"},
    "profile": "write",
    "imported": False,
    "subagent_context": None,
    "thinking_enabled": True,
}

# A sub-agent the first thread spawned: its parent in `parent_id` and `subagent_context`.
OSPREY_SUB = {
    "version": "0.3.0",
    "title": "Find every nests.lock",
    "updated_at": "2026-11-20T09:02:30+00:00",
    "messages": [
        user("b2e1d3c5-0001-4c7f-8e1b-6d2f3a4b5c01", {"Text": "find every nests.lock under osprey"}),
        agent([tool_use("toolu_sub_1", "find_path", {"glob": "**/nests.lock"})],
              {"toolu_sub_1": result("toolu_sub_1", "find_path", "No matches found")}),
        agent([{"Text": "There is no nests.lock anywhere."}]),
    ],
    "request_token_usage": {"b2e1d3c5-0001-4c7f-8e1b-6d2f3a4b5c01": {"input_tokens": 400, "output_tokens": 40}},
    "model": {"provider": "zed.dev", "model": "claude-haiku-4-5"},
    "subagent_context": {"parent_thread_id": "0f9a8b7c-osprey", "tool_use_id": "toolu_spawn", "depth": 1},
}

# No per-request usage: the thread's cumulative usage goes on its last reply.
KESTREL = {
    "version": "0.3.0",
    "title": "Kestrel CSV header",
    "updated_at": "2026-11-21T14:00:05+00:00",
    "messages": [
        user("c3f2e4d6-0001-4d80-9f2c-7e3a4b5c6d01", {"Text": "what is the kestrel CSV header?"}),
        agent([{"Text": "species,site,count,observed_at"}]),
    ],
    "cumulative_token_usage": {"input_tokens": 150, "output_tokens": 12},
    "model": {"provider": "ollama", "model": "qwen3-coder"},
}

# The earlier agent's document: role/segments, tool uses and results on the assistant message,
# usage indexed by message; a hidden user message; the title is `summary`.
HERON_LEGACY = {
    "version": "0.2.0",
    "summary": "Heron survey totals",
    "updated_at": "2025-06-02T08:30:00Z",
    "messages": [
        {"id": 0, "role": "user", "segments": [{"type": "text", "text": "total the heron survey"}],
         "tool_uses": [], "tool_results": [], "context": "<files>survey.csv</files>", "creases": [],
         "is_hidden": False},
        {"id": 1, "role": "assistant",
         "segments": [{"type": "thinking", "text": "Sum the count column.", "signature": None},
                      {"type": "text", "text": "Summing the count column."}],
         "tool_uses": [{"id": "toolu_heron_1", "name": "grep", "input": {"regex": "heron", "path": "survey.csv"}}],
         "tool_results": [{"tool_use_id": "toolu_heron_1", "is_error": False,
                           "content": "heron,3\nheron,4", "output": None}],
         "context": "", "creases": [], "is_hidden": False},
        {"id": 2, "role": "assistant", "segments": [{"type": "text", "text": "Seven herons in total."}],
         "tool_uses": [], "tool_results": [], "context": "", "creases": [], "is_hidden": False},
    ],
    "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": "/Users/dev/heron", "git_state": None}],
                                 "unsaved_buffer_paths": [], "timestamp": "2025-06-02T08:29:00Z"},
    "cumulative_token_usage": {"input_tokens": 900, "output_tokens": 70},
    "request_token_usage": [{}, {"input_tokens": 500, "output_tokens": 40}, {"input_tokens": 400, "output_tokens": 30}],
    "detailed_summary_state": "NotGenerated",
    "model": {"provider": "anthropic", "model": "claude-3-7-sonnet-latest"},
}


def create(path, columns_added):
    if os.path.exists(path):
        os.remove(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, "
               "updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL)")
    if columns_added:
        db.execute("ALTER TABLE threads ADD COLUMN parent_id TEXT")
        db.execute("ALTER TABLE threads ADD COLUMN folder_paths TEXT")
        db.execute("ALTER TABLE threads ADD COLUMN folder_paths_order TEXT")
        db.execute("ALTER TABLE threads ADD COLUMN created_at TEXT")
    return db


def document_bytes(thread):
    return json.dumps(thread, separators=(",", ":")).encode()


linux = create(os.path.join(HERE, "linux", "threads.db"), True)
insert = ("INSERT INTO threads (id, parent_id, folder_paths, folder_paths_order, summary, "
          "updated_at, data_type, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
linux.execute(insert, ("0f9a8b7c-osprey", None, "/home/dev/notes\n/home/dev/osprey", "1,0",
                       OSPREY["title"], OSPREY["updated_at"], "zstd", zstd(document_bytes(OSPREY)),
                       "2026-11-20T09:00:00+00:00"))
linux.execute(insert, ("1e0b9c8d-osprey-sub", "0f9a8b7c-osprey", "/home/dev/osprey", "0",
                       OSPREY_SUB["title"], OSPREY_SUB["updated_at"], "zstd",
                       zstd(document_bytes(OSPREY_SUB)), "2026-11-20T09:01:00+00:00"))
linux.execute(insert, ("2d1c0b9a-kestrel", None, None, None, KESTREL["title"], KESTREL["updated_at"],
                       "zstd", zstd(document_bytes(KESTREL)), "2026-11-21T14:00:00+00:00"))
torn = zstd(document_bytes(KESTREL))[:-9]
linux.execute(insert, ("3c2b1a09-torn", None, None, None, "Torn thread", "2026-11-22T10:00:00+00:00",
                       "zstd", torn, "2026-11-22T10:00:00+00:00"))
linux.commit()
linux.close()

macos = create(os.path.join(HERE, "macos", "threads.db"), False)
macos.execute("INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES (?, ?, ?, ?, ?)",
              ("4b3a2918-heron", HERON_LEGACY["summary"], HERON_LEGACY["updated_at"], "json",
               document_bytes(HERON_LEGACY)))
macos.commit()
macos.close()
