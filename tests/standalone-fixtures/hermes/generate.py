#!/usr/bin/env python3
"""Writes the Hermes Agent fixture: a `~/.hermes` home (as `hermes/`) with a `state.db` and
its `sessions/` files, and a profile without a database (`hermes/profiles/work`).

The tables are Hermes's own (`hermes_state_common.py` SCHEMA_SQL, schema version 30: the
`sessions` and `messages` tables as Hermes creates them); the files follow `run_agent.py`
`_save_session_log` (`session_<id>.json`) and the gateway's `append_to_transcript`
(`<id>.jsonl`, a `session_meta` line first). Run from this folder: `python3 generate.py`.
"""

import json
import os
import sqlite3

HOME = "hermes"
SESSIONS = os.path.join(HOME, "sessions")
WORK = os.path.join(HOME, "profiles", "work", "sessions")

SCHEMA = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, created_source TEXT, user_id TEXT,
    session_key TEXT, chat_id TEXT, chat_type TEXT, thread_id TEXT, display_name TEXT,
    origin_json TEXT, expiry_finalized INTEGER DEFAULT 0, model TEXT, model_config TEXT,
    system_prompt TEXT, system_prompt_hash TEXT, parent_session_id TEXT,
    started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0, cwd TEXT,
    git_branch TEXT, git_repo_root TEXT, git_metadata_generation INTEGER NOT NULL DEFAULT 0,
    billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT, estimated_cost_usd REAL,
    actual_cost_usd REAL, cost_status TEXT, cost_source TEXT, pricing_version TEXT, title TEXT,
    title_source TEXT, last_activity_at REAL, last_activity_description TEXT,
    last_activity_provenance TEXT, api_call_count INTEGER DEFAULT 0, handoff_state TEXT,
    handoff_platform TEXT, handoff_error TEXT, compression_failure_cooldown_until REAL,
    compression_failure_error TEXT, compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    compression_ineffective_count INTEGER NOT NULL DEFAULT 0, compression_recovery_deadline REAL,
    compression_overload_streak INTEGER NOT NULL DEFAULT 0, profile_name TEXT,
    transport_profile TEXT, rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0, pinned INTEGER NOT NULL DEFAULT 0,
    hidden INTEGER NOT NULL DEFAULT 0, last_read_at REAL, tool_names TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    effect_disposition TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT,
    reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT,
    codex_message_items TEXT, platform_message_id TEXT, observed INTEGER DEFAULT 0,
    _compressed_summary INTEGER NOT NULL DEFAULT 0, active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0, api_content TEXT, display_kind TEXT,
    display_metadata TEXT, display_identity BLOB, display_order INTEGER
);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
"""

MODEL = "anthropic/claude-sonnet-4.5"
NAS = "20261005_091500_a1b2c3"
NAS_2 = "20261005_101200_d4e5f6"
WEATHER = "20261005_120000_778899"
COMMIT = "20260930_180000_0a0b0c"
PRS = "20261006_090000_beef02"
PING = "20261006_083000_f00d01"


def call(call_id, name, arguments):
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def result(**fields):
    return json.dumps(fields)


NAS_MESSAGES = [
    ("user", "The nightly backup job on the NAS failed; find out why", {}, 1791198901.25),
    ("assistant", "", {"reasoning": "Check the backup log first.", "finish_reason": "tool_calls",
                       "tool_calls": [call("call_n1", "terminal", {"command": "tail -n 20 /var/log/backup.log"})]},
     1791198904.5),
    ("tool", result(output="rsync: connection unexpectedly closed (0 bytes received so far)\n"
                    "rsync error: error in rsync protocol data stream (code 12)",
                    exit_code=12, error=None), {"tool_call_id": "call_n1", "tool_name": "terminal"},
     1791198906.0),
    ("assistant", "The rsync step lost its connection to the NAS. Let me read the job config.",
     {"finish_reason": "tool_calls",
      "tool_calls": [call("call_n2", "read_file", {"path": "/etc/backup/nightly.conf"})]}, 1791198909.75),
    ("tool", result(success=False, error="File not found: /etc/backup/nightly.conf"),
     {"tool_call_id": "call_n2", "tool_name": "read_file"}, 1791198910.0),
    ("assistant", "", {"finish_reason": "tool_calls",
                       "tool_calls": [call("call_n3", "search_files", {"pattern": "nightly", "path": "/etc"})]},
     1791198912.5),
    ("tool", result(success=True, matches=["/etc/cron.d/nightly-backup"]),
     {"tool_call_id": "call_n3", "tool_name": "search_files"}, 1791198913.0),
    ("assistant", "The job is /etc/cron.d/nightly-backup, and the NAS drops rsync after 10 minutes: "
                  "raise `timeout` in the NAS's rsyncd.conf.", {"finish_reason": "stop"}, 1791198917.0),
]

NAS_2_MESSAGES = [
    ("user", "[CONTEXT COMPACTION - REFERENCE ONLY] Earlier turns: the nightly backup fails because "
             "the NAS closes rsync connections after 10 minutes; the fix is a longer rsyncd timeout.",
     {"_compressed_summary": 1}, 1791202320.0),
    ("user", "ok, set the timeout to 3600 and rerun the job", {}, 1791202325.0),
    ("assistant", "", {"finish_reason": "tool_calls", "tool_calls": [call(
        "call_m1", "terminal",
        {"command": "sudo sed -i 's/^timeout.*/timeout = 3600/' /etc/rsyncd.conf && sudo systemctl start nightly-backup"})]},
     1791202329.0),
    ("tool", result(output="", exit_code=0, error=None), {"tool_call_id": "call_m1", "tool_name": "terminal"},
     1791202391.0),
    ("assistant", "Timeout raised to 3600 s and the job re-run; it finished cleanly.",
     {"finish_reason": "stop"}, 1791202394.0),
]


def iso(seconds):
    import datetime
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).replace(tzinfo=None).isoformat()


def as_log_message(role, content, extra, when):
    message = {"role": role, "content": content}
    for key, value in extra.items():
        if key.startswith("_"):
            continue
        message[key] = value
    return message


def write_store():
    os.makedirs(SESSIONS, exist_ok=True)
    path = os.path.join(HOME, "state.db")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("INSERT INTO schema_version VALUES (30)")
    sessions = [
        dict(id=NAS, source="cli", model=MODEL, started_at=1791198900.0, ended_at=1791202300.0,
             end_reason="compression", message_count=len(NAS_MESSAGES), tool_call_count=3,
             input_tokens=5200, output_tokens=640, cache_read_tokens=21000, cache_write_tokens=1800,
             reasoning_tokens=120, cwd="/home/ana/infra", git_branch="main",
             title="Nightly NAS backup failure", title_source="llm", api_call_count=4,
             model_config=json.dumps({"max_iterations": 90})),
        dict(id=NAS_2, source="cli", model=MODEL, parent_session_id=NAS, started_at=1791202300.0,
             ended_at=1791202400.0, end_reason="user_exit", message_count=len(NAS_2_MESSAGES),
             tool_call_count=1, input_tokens=900, output_tokens=150, cache_read_tokens=4000,
             cache_write_tokens=0, cwd="/home/ana/infra", title="Nightly NAS backup failure #2",
             model_config=json.dumps({"max_iterations": 90})),
        dict(id=WEATHER, source="telegram", model=MODEL, started_at=1791208800.0,
             message_count=0, session_key="agent:main:telegram:dm:4411", chat_type="dm"),
    ]
    for row in sessions:
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        db.execute(f"INSERT INTO sessions ({columns}) VALUES ({marks})", list(row.values()))
    for session_id, messages in [(NAS, NAS_MESSAGES), (NAS_2, NAS_2_MESSAGES)]:
        for role, content, extra, when in messages:
            row = {"session_id": session_id, "role": role, "content": content, "timestamp": when}
            for key, value in extra.items():
                row[key] = json.dumps(value) if key == "tool_calls" else value
            columns = ", ".join(row)
            marks = ", ".join("?" for _ in row)
            db.execute(f"INSERT INTO messages ({columns}) VALUES ({marks})", list(row.values()))
    db.commit()
    db.execute("PRAGMA journal_mode = DELETE")
    db.close()


def write_log(folder, session_id, model, platform, start, messages):
    log = {"session_id": session_id, "model": model, "base_url": "https://openrouter.ai/api/v1",
           "platform": platform, "session_start": start, "last_updated": start,
           "message_count": len(messages), "messages": messages}
    with open(os.path.join(folder, f"session_{session_id}.json"), "w") as out:
        json.dump(log, out, indent=2, ensure_ascii=False)


def write_transcript(folder, session_id, model, platform, lines):
    with open(os.path.join(folder, f"{session_id}.jsonl"), "w") as out:
        out.write(json.dumps({"role": "session_meta", "tools": [], "model": model,
                              "platform": platform, "timestamp": lines[0]["timestamp"]}) + "\n")
        for line in lines:
            out.write((line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)) + "\n")


def main():
    write_store()
    # The CLI's JSON log of the database's first session: the same messages, never read twice.
    write_log(SESSIONS, NAS, MODEL, "cli", iso(1791198900.0),
              [as_log_message(*message) for message in NAS_MESSAGES])
    # A gateway session whose rows were never flushed: read from its transcript.
    write_transcript(SESSIONS, WEATHER, MODEL, "telegram", [
        {"role": "user", "content": "what's the weather in Lisbon tomorrow?", "timestamp": "2026-10-05T12:00:05.120000"},
        {"role": "assistant", "content": "", "finish_reason": "tool_calls", "timestamp": "2026-10-05T12:00:08.000000",
         "tool_calls": [call("call_w1", "web_search", {"query": "Lisbon weather tomorrow"})]},
        {"role": "tool", "tool_call_id": "call_w1", "tool_name": "web_search", "timestamp": "2026-10-05T12:00:09.500000",
         "content": result(success=True, results=[{"title": "Lisbon forecast", "snippet": "19 C, light rain before noon"}])},
        {"role": "assistant", "content": "Tomorrow in Lisbon: 19 \u00b0C, light rain in the morning.",
         "finish_reason": "stop", "timestamp": "2026-10-05T12:00:12.000000"},
    ])
    # A session from before the database: its JSON log alone.
    write_log(SESSIONS, COMMIT, "openai/gpt-5.1", "cli", "2026-09-30T18:00:00.000000", [
        {"role": "user", "content": "draft a commit message for the retry change"},
        {"role": "assistant", "content": "<think>Summarise the diff in one line.</think>\n"
                                         "fix(sync): retry rsync when the NAS resets the connection",
         "finish_reason": "stop"},
    ])
    # The gateway's session index: not a session.
    with open(os.path.join(SESSIONS, "sessions.json"), "w") as out:
        json.dump({"agent:main:telegram:dm:4411": {"session_id": WEATHER, "updated_at": "2026-10-05T12:00:12"}}, out)

    # A profile without a database: each file read alone.
    os.makedirs(WORK, exist_ok=True)
    prs = [
        {"role": "user", "content": "list the open PRs", "timestamp": "2026-10-06T09:00:02.000000"},
        {"role": "assistant", "content": "", "finish_reason": "tool_calls", "timestamp": "2026-10-06T09:00:04.000000",
         "tool_calls": [call("call_p1", "terminal", {"command": "gh pr list"})]},
        {"role": "tool", "tool_call_id": "call_p1", "tool_name": "terminal", "timestamp": "2026-10-06T09:00:05.000000",
         "content": result(output="#41 fix(sync): retry rsync\n#42 docs: backup runbook", exit_code=0, error=None)},
        {"role": "assistant", "content": "Two open PRs: #41 (rsync retry) and #42 (backup runbook).",
         "finish_reason": "stop", "timestamp": "2026-10-06T09:00:07.000000"},
    ]
    write_log(WORK, PRS, "openai/gpt-5.1", "slack", "2026-10-06T09:00:00.000000", prs)
    # Its gateway transcript (user and assistant lines only): the JSON log is read instead.
    write_transcript(WORK, PRS, "openai/gpt-5.1", "slack", [prs[0], prs[3]])
    write_transcript(WORK, PING, "openai/gpt-5.1", "slack", [
        {"role": "user", "content": "ping", "timestamp": "2026-10-06T08:30:01.000000"},
        '{"role": "assistant", "content": "po',
        {"role": "assistant", "content": "pong", "finish_reason": "stop", "timestamp": "2026-10-06T08:30:02.000000"},
    ])


if __name__ == "__main__":
    main()
