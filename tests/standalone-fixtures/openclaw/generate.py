#!/usr/bin/env python3
"""Writes the OpenClaw homes of tests/it/harnesses/openclaw.rs, in OpenClaw's own formats.

    python3 tests/standalone-fixtures/openclaw/generate.py

`openclaw/` is a `~/.openclaw` from before the SQLite store (2026.8): agent `main` with one
Pi-format transcript `sessions/<id>.jsonl`, its `sessions.json` index (the display name) and a
compaction checkpoint `<id>.checkpoint.<uuid>.jsonl` (a copy of the transcript's head, never a
session of its own). `qclaw/` is a `~/.qclaw` written by 2026.9: agent `vera`'s
`agent/openclaw-agent.sqlite` with `session_windows` and `transcript_events` as
`src/state/openclaw-agent-schema.sql` and `src/config/sessions/transcript-payload.ts` have them:
an event of 1 KiB or more is a zstd frame in `event_zstd` with `event_utf8_bytes` and
`event_json` NULL. Its first window holds one such event whose recorded length is wrong (a
counted warning); its second window is a reset of the first. Needs the `zstd` command.
"""
import json
import os
import shutil
import sqlite3
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def zstd(data: bytes) -> bytes:
    return subprocess.run(["zstd", "-q", "-1", "-c"], input=data, check=True,
                          capture_output=True).stdout


def usage(inp, out, read=0, write=0):
    return {"input": inp, "output": out, "cacheRead": read, "cacheWrite": write,
            "totalTokens": inp + out + read + write,
            "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}}


def message(entry_id, parent, stamp, body):
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": body}


def user(text, ms):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms}


def assistant(blocks, used, stop, ms, model="claude-sonnet-4-5"):
    return {"role": "assistant", "content": blocks, "api": "anthropic-messages", "provider": "anthropic",
            "model": model, "usage": used, "stopReason": stop, "timestamp": ms}


def tool_result(call_id, name, text, ms, error=False):
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": error, "timestamp": ms}


FALCON_ID = "7c1e2a90-5b3d-4f6e-8a1c-2d3e4f5a6b7c"
FALCON = [
    {"type": "session", "version": 3, "id": FALCON_ID, "timestamp": "2026-07-14T10:00:00.000Z",
     "cwd": "/home/dev/falcon"},
    {"type": "model_change", "id": "a0000001", "parentId": None, "timestamp": "2026-07-14T10:00:00.100Z",
     "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
    {"type": "thinking_level_change", "id": "a0000002", "parentId": "a0000001",
     "timestamp": "2026-07-14T10:00:00.200Z", "thinkingLevel": "low"},
    {"type": "custom", "customType": "model-snapshot", "data": {"timestamp": 1784023200300,
     "provider": "anthropic", "modelApi": "anthropic-messages", "modelId": "claude-sonnet-4-5"},
     "id": "a0000003", "parentId": "a0000002", "timestamp": "2026-07-14T10:00:00.300Z"},
    message("a0000004", "a0000003", "2026-07-14T10:00:05.000Z",
            user("why does the falcon tracker double-count sightings?", 1784023205000)),
    message("a0000005", "a0000004", "2026-07-14T10:00:09.000Z",
            assistant([{"type": "thinking", "thinking": "Look at the sighting log first."},
                       {"type": "text", "text": "Checking the sighting log."},
                       {"type": "toolCall", "id": "toolu_falcon_1", "name": "exec",
                        "arguments": {"command": "sort sightings.log | uniq -d | head"}}],
                      usage(1200, 90, 3000), "toolUse", 1784023209000)),
    message("a0000006", "a0000005", "2026-07-14T10:00:10.000Z",
            tool_result("toolu_falcon_1", "exec", "F-17 2026-07-13T06:00\nF-17 2026-07-13T06:00", 1784023210000)),
    message("a0000007", "a0000006", "2026-07-14T10:00:14.000Z",
            assistant([{"type": "text", "text": "Each sighting is logged twice; deduplicate by id and time."}],
                      usage(1400, 60, 3000), "stop", 1784023214000)),
    message("a0000008", "a0000007", "2026-07-14T10:01:00.000Z", user("do it", 1784023260000)),
    message("a0000009", "a0000008", "2026-07-14T10:01:04.000Z",
            assistant([{"type": "toolCall", "id": "toolu_falcon_2", "name": "edit",
                        "arguments": {"path": "tracker.py", "oldText": "rows", "newText": "set(rows)"}}],
                      usage(1500, 70, 3000), "toolUse", 1784023264000)),
    message("a0000010", "a0000009", "2026-07-14T10:01:05.000Z",
            tool_result("toolu_falcon_2", "edit", "EACCES: tracker.py is read-only", 1784023265000, error=True)),
    message("a0000011", "a0000010", "2026-07-14T10:01:08.000Z",
            assistant([{"type": "text", "text": "tracker.py is read-only here; make it writable and I will apply the fix."}],
                      usage(1600, 40, 3000), "stop", 1784023268000)),
]

OSPREY_1 = "9d2f4b61-osprey-window-1"
OSPREY_2 = "9d2f4b62-osprey-window-2"
NIGHTLY_LOG = "\n".join(f"2026-09-30T0{hour % 10}:{minute:02d} nest {minute % 7} osprey count {minute % 5}"
                        for hour in range(3) for minute in range(40))
DIGEST = ("Nightly osprey digest: " + " ".join(f"nest {n}: steady." for n in range(90)))
OSPREY_1_EVENTS = [
    {"type": "session", "version": 3, "id": OSPREY_1, "timestamp": "2026-10-01T05:00:00.000Z", "cwd": "/srv/vera"},
    message("b0000001", None, "2026-10-01T05:00:01.000Z",
            user("summarize the nightly osprey log", 1790830801000)),
    message("b0000002", "b0000001", "2026-10-01T05:00:03.000Z",
            assistant([{"type": "toolCall", "id": "call_osprey_1", "name": "read",
                        "arguments": {"path": "logs/osprey-nightly.log"}}],
                      usage(800, 30), "toolUse", 1790830803000, model="gpt-5.1")),
    message("b0000003", "b0000002", "2026-10-01T05:00:04.000Z",
            tool_result("call_osprey_1", "read", NIGHTLY_LOG, 1790830804000)),
    message("b0000004", "b0000003", "2026-10-01T05:00:09.000Z",
            assistant([{"type": "text", "text": DIGEST}], usage(2400, 420), "stop", 1790830809000, model="gpt-5.1")),
    # Written compressed with a wrong recorded length: skipped with a warning.
    message("b0000005", "b0000004", "2026-10-01T05:00:10.000Z",
            user("this event's recorded size is wrong " + "x" * 1100, 1790830810000)),
]
OSPREY_2_EVENTS = [
    {"type": "session", "version": 3, "id": OSPREY_2, "timestamp": "2026-10-02T05:00:00.000Z", "cwd": "/srv/vera"},
    message("c0000001", None, "2026-10-02T05:00:01.000Z", user("again, shorter", 1790917201000)),
    message("c0000002", "c0000001", "2026-10-02T05:00:03.000Z",
            assistant([{"type": "text", "text": "All nests steady."}], usage(300, 8), "stop", 1790917203000,
                      model="gpt-5.1")),
]


def line(record):
    return json.dumps(record, separators=(",", ":"))


def write_legacy():
    sessions = os.path.join(HERE, "openclaw", "agents", "main", "sessions")
    shutil.rmtree(os.path.join(HERE, "openclaw"), ignore_errors=True)
    os.makedirs(sessions)
    with open(os.path.join(sessions, f"{FALCON_ID}.jsonl"), "w") as out:
        out.writelines(line(record) + "\n" for record in FALCON)
    with open(os.path.join(sessions, f"{FALCON_ID}.checkpoint.5d2e9f00.jsonl"), "w") as out:
        out.writelines(line(record) + "\n" for record in FALCON[:6])
    index = {"agent:main:main": {"sessionId": FALCON_ID, "updatedAt": 1784023268000,
                                 "displayName": "Falcon tracker double counts", "chatType": "direct"}}
    with open(os.path.join(sessions, "sessions.json"), "w") as out:
        json.dump(index, out, indent=2)


def write_store():
    agent = os.path.join(HERE, "qclaw", "agents", "vera", "agent")
    shutil.rmtree(os.path.join(HERE, "qclaw"), ignore_errors=True)
    os.makedirs(agent)
    db = sqlite3.connect(os.path.join(agent, "openclaw-agent.sqlite"))
    db.executescript("""
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  previous_session_id TEXT,
  reason TEXT,
  session_scope TEXT NOT NULL DEFAULT 'conversation',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  display_name TEXT,
  model_provider TEXT,
  model TEXT
) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER,
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE
) STRICT;
""")
    db.execute("INSERT INTO session_windows (session_id, session_key, previous_session_id, reason, created_at, "
               "updated_at, display_name, model_provider, model) VALUES (?, ?, NULL, 'initial', ?, ?, ?, ?, ?)",
               (OSPREY_1, "agent:vera:main", 1790830800000, 1790830810000, "Nightly osprey digest", "openai",
                "gpt-5.1"))
    db.execute("INSERT INTO session_windows (session_id, session_key, previous_session_id, reason, created_at, "
               "updated_at, display_name, model_provider, model) VALUES (?, ?, ?, 'reset', ?, ?, NULL, ?, ?)",
               (OSPREY_2, "agent:vera:main", OSPREY_1, 1790917200000, 1790917203000, "openai", "gpt-5.1"))
    for session_id, events in [(OSPREY_1, OSPREY_1_EVENTS), (OSPREY_2, OSPREY_2_EVENTS)]:
        for seq, record in enumerate(events):
            text = line(record)
            raw = text.encode()
            created = 1790830800000 + seq
            torn = record.get("id") == "b0000005"
            if len(raw) >= 1024 and record["type"] != "session":
                size = len(raw) + 3 if torn else len(raw)
                db.execute("INSERT INTO transcript_events VALUES (?, ?, NULL, ?, ?, ?, NULL)",
                           (session_id, seq, created, zstd(raw), size))
            else:
                db.execute("INSERT INTO transcript_events VALUES (?, ?, ?, ?, NULL, ?, NULL)",
                           (session_id, seq, text, created, len(raw)))
    db.commit()
    db.close()


write_legacy()
write_store()
