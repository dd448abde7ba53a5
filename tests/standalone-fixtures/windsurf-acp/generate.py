#!/usr/bin/env python3
"""Writes the Windsurf ACP agent-window fixture (see README.md for where each shape comes from).

Run it here: python3 generate.py
"""
import json
import os
import shutil
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
USER = os.path.join(HERE, "Windsurf", "User")
EVENTS = os.path.join(USER, "acp-events")
GLOBAL = os.path.join(USER, "globalStorage")

CADET = "acp/devin-cli/brindle-cadet"
CADET_LOG = "0b7e2c1a-5d7e-4c1f-9a55-3f0c2d9e8a11"
OTTER = "acp/devin-cli/quiet-otter"
OTTER_LOG = "5c2d9e8a-11aa-4b7e-8c1f-0b7e2c1a3f0c"


def line(notification):
    return {"providerId": "devin-cli", "notification": notification}


def meta(second, field=None, value=None):
    fields = {"cognition.ai/timestamp": "2026-06-08T10:00:%02d.000Z" % second}
    if field:
        fields["cognition.ai/" + field] = value
    return fields


def text(value):
    return {"type": "text", "text": value}


def chunk(kind, content, fields):
    return line({"sessionUpdate": kind, "content": content, "_meta": fields})


# The research notes' session, verbatim: a prompt, a reasoning chunk, a call failing, a reply.
CADET_LINES = [
    line({"sessionUpdate": "user_message_chunk",
          "content": {"type": "text", "text": "Why does test_io flake?"},
          "_meta": {"cognition.ai/timestamp": "2026-06-07T03:09:53.000Z",
                    "cognition.ai/clientMessageId": "m1"}}),
    line({"sessionUpdate": "agent_thought_chunk",
          "content": {"type": "text", "text": "Check the fixture."},
          "_meta": {"cognition.ai/timestamp": "2026-06-07T03:09:55.000Z",
                    "cognition.ai/streamingMessageId": "t1"}}),
    line({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Run pytest",
          "kind": "execute", "status": "in_progress",
          "rawInput": {"command": "pytest tests/test_io.py"},
          "_meta": {"cognition.ai/timestamp": "2026-06-07T03:09:56.000Z",
                    "cognition.ai/inferenceToolName": "run_command"}}),
    line({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "failed",
          "content": [{"type": "content", "content": {"type": "text", "text": "1 failed"}}],
          "_meta": {"cognition.ai/timestamp": "2026-06-07T03:10:00.000Z"}}),
    line({"sessionUpdate": "agent_message_chunk",
          "content": {"type": "text", "text": "It races on tmp_path."},
          "_meta": {"cognition.ai/timestamp": "2026-06-07T03:10:03.000Z",
                    "cognition.ai/streamingMessageId": "a1"}}),
]

# Every message split over several lines (a reply's pieces around a call), UI updates between
# them, and one torn line (what a crashed write leaves) before the last reply.
OTTER_LINES = [
    chunk("user_message_chunk", text("Rename load_cfg to load_config."),
          meta(1, "clientMessageId", "u1")),
    chunk("user_message_chunk",
          {"type": "resource", "resource": {"uri": "file:///home/u/app/src/config.rs",
                                            "text": "fn load_cfg() {}"}},
          meta(1, "clientMessageId", "u1")),
    chunk("agent_thought_chunk", text("Find the "), meta(2, "streamingMessageId", "t1")),
    chunk("agent_thought_chunk", text("callers."), meta(2, "streamingMessageId", "t1")),
    chunk("agent_message_chunk", text("I'll rename "), meta(3, "streamingMessageId", "a1")),
    line({"sessionUpdate": "tool_call", "toolCallId": "c7", "title": "Search", "kind": "search",
          "status": "pending", "rawInput": {"pattern": "load_cfg"},
          "_meta": dict(meta(4), **{"cognition.ai/inferenceToolName": "grep_search"})}),
    chunk("agent_message_chunk", text("it in two files."), meta(4, "streamingMessageId", "a1")),
    line({"sessionUpdate": "tool_call_update", "toolCallId": "c7", "status": "in_progress",
          "_meta": meta(5)}),
    line({"sessionUpdate": "tool_call_update", "toolCallId": "c7", "status": "completed",
          "content": [{"type": "content", "content": text("src/config.rs:1")}],
          "_meta": meta(6)}),
    line({"sessionUpdate": "session_info_update", "title": "Rename load_cfg"}),
    line({"sessionUpdate": "plan", "entries": [{"content": "Rename", "status": "completed"}]}),
    line({"sessionUpdate": "usage_update", "used": 5120, "size": 200000,
          "cost": {"amount": 0.02, "currency": "USD"}}),
    '{"providerId":"devin-cli","notification":{"sessionUpdate":"agent_mess',
    chunk("agent_message_chunk", text("Done: "), meta(7, "streamingMessageId", "a2")),
    chunk("agent_message_chunk", text("renamed."), meta(7, "streamingMessageId", "a2")),
]

METADATA_CACHE = {"version": 11, "sessions": [{
    "sessionId": CADET, "providerId": "devin-cli", "status": "end_turn",
    "title": "Fix flaky test", "cwd": "file:///home/u/proj", "workspaceDirs": ["/home/u/proj"],
    "updatedAt": "2026-06-07T03:10:03.000Z",
    "configOptions": [{"id": "model", "currentValue": "swe-1-6"}],
    "_meta": {"cognition.ai/createdAt": "2026-06-07T03:09:52.477Z",
              "cognition.ai/isArchived": False}}]}

EVENT_LOG_INDEX = {
    CADET: {"uuid": CADET_LOG, "eventCount": 5, "lastUpdated": 1780801814955},
    OTTER: {"uuid": OTTER_LOG, "eventCount": 15, "lastUpdated": 1780912807000},
}

# The cache no longer lists this session: its session-info row does.
OTTER_INFO = {"providerId": "devin-cli", "info": {
    "sessionId": OTTER, "title": "Rename the config loader", "cwd": "/home/u/app",
    "updatedAt": "2026-06-08T10:00:07.000Z",
    "configOptions": [{"id": "model", "currentValue": "swe-1-5"}],
    "_meta": {"cognition.ai/createdAt": "2026-06-08T10:00:00.000Z"}}}

# What else a real global store holds: UI state, and the plaintext API key no reader may touch.
OTHER_ITEMS = {
    "windsurfAuthStatus": {"name": "dev", "apiKey": "devin-session-token$fixture-never-read"},
    "chat.ChatSessionStore.index": {"version": 1, "entries": {}},
    "workbench.panel.position": "bottom",
}


def write_log(uuid, lines):
    with open(os.path.join(EVENTS, uuid + ".ndjson"), "w") as out:
        for record in lines:
            out.write(record if isinstance(record, str) else json.dumps(record, separators=(",", ":")))
            out.write("\n")


def write_store():
    store = sqlite3.connect(os.path.join(GLOBAL, "state.vscdb"))
    store.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    rows = [
        ("windsurf.acp.metadataCache", json.dumps(METADATA_CACHE)),
        # VS Code writes some values as BLOBs: the index is one here.
        ("windsurf.acp.eventLog.index", json.dumps(EVENT_LOG_INDEX).encode()),
        ("windsurf.acp.sessioninfo.session." + OTTER, json.dumps(OTTER_INFO)),
    ]
    rows += [(key, json.dumps(value)) for key, value in OTHER_ITEMS.items()]
    store.executemany("INSERT INTO ItemTable (key, value) VALUES (?, ?)", rows)
    store.commit()
    store.close()


def main():
    shutil.rmtree(os.path.join(HERE, "Windsurf"), ignore_errors=True)
    os.makedirs(EVENTS)
    os.makedirs(GLOBAL)
    write_log(CADET_LOG, CADET_LINES)
    write_log(OTTER_LOG, OTTER_LINES)
    write_store()


if __name__ == "__main__":
    main()
