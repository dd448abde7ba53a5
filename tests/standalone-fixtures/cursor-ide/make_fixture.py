#!/usr/bin/env python3
"""Writes the Cursor IDE fixture: a `Cursor/User` directory holding the global
`globalStorage/state.vscdb` and two workspaces' `workspaceStorage/<hash>/{state.vscdb,
workspace.json}`, in the schema Cursor writes (`ItemTable` and `cursorDiskKV`, both
`(key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`; JSON values).

Shapes follow the public reverse-engineering notes (empathic/toolpath
docs/agents/formats/cursor.md, michaeldhood/chatrxiv docs/cursor/storage-reference*.md) and
peers' fixtures; every text is invented. Run from this directory: `python3 make_fixture.py`.
The generated files are committed; tests/it/harnesses/cursor_ide.rs counts from them.
"""

import json
import os
import sqlite3

USER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Cursor", "User")

HERON = "0b7c2e4a-1d3f-4a5b-8c6d-7e8f9a0b1c2d"  # split bubbles, cwd from a workspace DB
EGRET = "1c8d3f5b-2e4a-4b6c-9d7e-8f9a0b1c2d3e"  # split bubbles, cwd from composerHeaders
KESTREL = "2d9e4a6c-3f5b-4c7d-8e8f-9a0b1c2d3e4f"  # old build: inline conversation
SCOUT = "3e0f5b7d-4a6c-4d8e-9f9a-0b1c2d3e4f5a"  # egret's sub-agent, cwd from a bubble
DRAFT = "4f1a6c8e-5b7d-4e9f-8a0b-1c2d3e4f5a6b"  # opened and abandoned: no session
BROKEN = "5a2b7d9f-6c8e-4f0a-9b1c-2d3e4f5a6b7c"  # composerData that is not JSON

HERON_WORKSPACE = "5f1c0a9e3d7b2c4a8e6f1d0b9a7c3e52"
KESTREL_WORKSPACE = "9ab4e2d17c6f0a3b5d8e2c4f6a1b3d70"

SCHEMA = (
    "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);"
    "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);"
)


def bubble(bubble_id, kind, created_at, **fields):
    value = {"_v": 3, "bubbleId": bubble_id, "type": kind, "createdAt": created_at,
             "text": "", "richText": "", "isAgentic": kind == 2, "requestId": "",
             "codeBlocks": [], "toolResults": [], "allThinkingBlocks": [],
             "attachedCodeChunks": [], "gitDiffs": [], "images": []}
    value.update(fields)
    return value


def tool(call_id, number, name, status, params, result, raw_args=None, **fields):
    data = {"tool": number, "toolIndex": 0, "modelCallId": "", "toolCallId": call_id,
            "status": status, "name": name, "params": json.dumps(params),
            "result": None if result is None else json.dumps(result), "additionalData": {}}
    if raw_args is not None:
        data["rawArgs"] = json.dumps(raw_args)
    data.update(fields)
    return data


def composer(composer_id, name, created_at, bubbles, **fields):
    value = {"_v": 10, "composerId": composer_id, "name": name, "createdAt": created_at,
             "lastUpdatedAt": created_at + 60_000, "status": "completed",
             "unifiedMode": "agent", "isAgentic": True,
             "modelConfig": {"modelName": "claude-4.5-sonnet", "maxMode": False},
             "fullConversationHeadersOnly": [
                 {"bubbleId": b["bubbleId"], "type": b["type"]} for b in bubbles],
             "conversationMap": {}, "text": "", "richText": "",
             "blobEncryptionKey": "c2VjcmV0LWtleS1ub3QtdG8tYmUtaW5kZXhlZC0xMjM0NTY=",
             "originalFileStates": {}, "codeBlockData": {}, "usageData": {}}
    value.update(fields)
    return value


def heron():
    bubbles = [
        bubble("h-u1", 1, "2026-03-02T09:00:00.000Z", text="why does count_herons return 11?"),
        bubble("h-t1", 2, "2026-03-02T09:00:02.000Z", capabilityType=30,
               thinking={"text": "Run the test first.", "signature": "sig"}),
        bubble("h-a1", 2, "2026-03-02T09:00:03.000Z", text="Let me run the test.",
               modelInfo={"modelName": "claude-4.5-sonnet"},
               tokenCount={"inputTokens": 12000, "outputTokens": 40}),
        bubble("h-c1", 2, "2026-03-02T09:00:04.000Z", capabilityType=15,
               toolFormerData=tool("toolu_heron1", 15, "run_terminal_command_v2", "completed",
                                   {"command": "cargo test count", "cwd": ""},
                                   {"output": "test count ... FAILED\nexpected 12, got 11\n",
                                    "exitCode": 101, "rejected": False, "notInterrupted": True},
                                   raw_args={"command": "cargo test count"})),
        bubble("h-c2", 2, "2026-03-02T09:00:06.000Z", capabilityType=15,
               toolFormerData=tool("toolu_heron2", 40, "read_file_v2", "completed",
                                   {"targetFile": "/home/dev/heron/src/count.rs"},
                                   {"contents": "fn count_herons() -> u32 { 11 }"})),
        bubble("h-a2", 2, "2026-03-02T09:00:08.000Z",
               text="The loop stops one short: `count_herons` returns 11.",
               modelInfo={"modelName": "claude-4.5-sonnet"},
               tokenCount={"inputTokens": 13500, "outputTokens": 90}),
        bubble("h-u2", 1, "2026-03-02T09:05:00.000Z", text="fix it"),
        bubble("h-a3", 2, "2026-03-02T09:05:04.000Z", text="Fixed: it now counts 12 herons.",
               modelInfo={"modelName": "claude-4.5-sonnet"},
               tokenCount={"inputTokens": 14000, "outputTokens": 25}),
    ]
    value = composer(HERON, "Heron count off by one", 1772442000000, bubbles)
    # A header whose bubble was folded into another (Cursor lists more headers than rows).
    value["fullConversationHeadersOnly"].insert(3, {"bubbleId": "h-folded", "type": 2})
    # A bubble row holding JSON null (seen in real stores): skipped with a warning.
    value["fullConversationHeadersOnly"].append({"bubbleId": "h-null", "type": 2})
    rows = [(f"bubbleId:{HERON}:{b['bubbleId']}", json.dumps(b)) for b in bubbles]
    rows.append((f"bubbleId:{HERON}:h-null", "null"))
    return value, rows


def egret():
    bubbles = [
        bubble("e-u1", 1, "2026-03-03T10:00:00.000Z", text="rename Egret to GreatEgret"),
        bubble("e-c1", 2, "2026-03-03T10:00:05.000Z", capabilityType=15,
               toolFormerData=tool("toolu_egret1", 38, "edit_file_v2", "error",
                                   {"relativeWorkspacePath": "/home/dev/egret/src/lib.rs"},
                                   None, error="file is read-only")),
        bubble("e-c2", 2, "2026-03-03T10:00:07.000Z", capabilityType=15,
               toolFormerData=tool("toolu_egret2", 15, "run_terminal_command_v2", "cancelled",
                                   {"command": "chmod +w src/lib.rs"}, None,
                                   userDecision="rejected")),
        bubble("e-c3", 2, "2026-03-03T10:00:09.000Z", capabilityType=15,
               toolFormerData=tool("toolu_egret3", 48, "task_v2", "completed",
                                   {"description": "find every Egret"},
                                   {"output": "src/lib.rs:3 struct Egret"})),
        bubble("e-a1", 2, "2026-03-03T10:00:12.000Z",
               text="I could not edit src/lib.rs: it is read-only.",
               modelInfo={"modelName": "gpt-5"},
               tokenCount={"inputTokens": 8000, "outputTokens": 60}),
        bubble("e-s1", 2, "2026-03-03T10:10:00.000Z", capabilityType=22,
               tokenCount={"inputTokens": 0, "outputTokens": 0}),
        bubble("e-u2", 1, "2026-03-03T10:10:05.000Z", text="try again"),
        bubble("e-a2", 2, "2026-03-03T10:10:09.000Z", text="Renamed.",
               modelInfo={"modelName": "gpt-5"},
               tokenCount={"inputTokens": 3000, "outputTokens": 15}),
    ]
    value = composer(EGRET, "Rename Egret", 1772532000000, bubbles, _v=16,
                     modelConfig={"modelName": "gpt-5", "maxMode": False},
                     subagentComposerIds=[SCOUT])
    rows = [(f"bubbleId:{EGRET}:{b['bubbleId']}", json.dumps(b)) for b in bubbles]
    return value, rows


def scout():
    bubbles = [
        bubble("s-u1", 1, "2026-03-03T10:00:09.500Z", text="find every Egret",
               workspaceUris=["file:///home/dev/egret"]),
        bubble("s-a1", 2, "2026-03-03T10:00:10.500Z", text="src/lib.rs:3 struct Egret",
               modelInfo={"modelName": "gpt-5-mini"},
               tokenCount={"inputTokens": 900, "outputTokens": 12}),
    ]
    value = composer(SCOUT, "find every Egret", 1772532009500, bubbles, _v=16,
                     modelConfig={"modelName": "default", "maxMode": False},
                     subagentInfo={"parentComposerId": EGRET, "subagentTypeName": "explore",
                                   "toolCallId": "toolu_egret3"})
    rows = [(f"bubbleId:{SCOUT}:{b['bubbleId']}", json.dumps(b)) for b in bubbles]
    return value, rows


def kestrel():
    # An older build: the whole conversation inline, no bubble rows, no per-bubble times.
    conversation = [
        {"bubbleId": "k-u1", "type": 1, "text": "what does kestrel.toml configure?"},
        {"bubbleId": "k-a1", "type": 2, "text": "The cache size and the listen port."},
        {"bubbleId": "k-u2", "type": 1, "text": "and the log level?"},
        {"bubbleId": "k-a2", "type": 2, "text": "Not there: it comes from KESTREL_LOG."},
    ]
    return {"_v": 2, "composerId": KESTREL, "name": "Kestrel config",
            "createdAt": 1767225600000, "lastUpdatedAt": 1767225660000,
            "conversation": conversation, "modelConfig": {"modelName": "gpt-4.1"}}


def write_global():
    path = os.path.join(USER, "globalStorage", "state.vscdb")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    kv = []
    heron_value, heron_rows = heron()
    # Heron's rows are stored as BLOBs, the others as TEXT: Cursor's column is BLOB, its
    # values JSON either way.
    kv.append((f"composerData:{HERON}", json.dumps(heron_value).encode()))
    kv.extend((key, text.encode()) for key, text in heron_rows)
    for value, rows in (egret(), scout()):
        kv.append((f"composerData:{value['composerId']}", json.dumps(value)))
        kv.extend(rows)
    kv.append((f"composerData:{KESTREL}", json.dumps(kestrel())))
    kv.append((f"composerData:{DRAFT}", json.dumps(composer(DRAFT, "", 1772600000000, []))))
    kv.append((f"composerData:{BROKEN}", '{"_v": 10, "composerId": "' + BROKEN + '", "fullConv'))
    kv.append(("composer.content.e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
               ""))
    db.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", kv)
    headers = {"allComposers": [
        {"type": "head", "composerId": EGRET, "name": "Rename Egret",
         "createdAt": 1772532000000, "unifiedMode": "agent",
         "workspaceIdentifier": {"id": "c0ffee00c0ffee00c0ffee00c0ffee00", "uri": {
             "$mid": 1, "fsPath": "/home/dev/egret", "external": "file:///home/dev/egret",
             "path": "/home/dev/egret", "scheme": "file"}}},
        {"type": "head", "composerId": DRAFT, "createdAt": 1772600000000},
    ]}
    db.executemany("INSERT INTO ItemTable VALUES (?, ?)", [
        ("composer.composerHeaders", json.dumps(headers)),
        ("cursorAuth/accessToken", "eyJhbGciOiJIUzI1NiJ9.fixture-token-never-read.sig"),
        ("workbench.colorTheme", "Default Dark+"),
    ])
    db.commit()
    db.execute("VACUUM")
    db.close()


def write_workspace(workspace_hash, folder_uri, composer_ids):
    directory = os.path.join(USER, "workspaceStorage", workspace_hash)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "workspace.json"), "w") as manifest:
        json.dump({"folder": folder_uri}, manifest)
        manifest.write("\n")
    path = os.path.join(directory, "state.vscdb")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    heads = {"allComposers": [{"type": "head", "composerId": composer_id,
                               "createdAt": 1772442000000} for composer_id in composer_ids],
             "selectedComposerIds": composer_ids[:1], "hasMigratedComposerData": True}
    db.executemany("INSERT INTO ItemTable VALUES (?, ?)", [
        ("composer.composerData", json.dumps(heads)),
        ("aiService.prompts", json.dumps([{"text": "why does count_herons return 11?",
                                           "commandType": 4}])),
    ])
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    write_global()
    write_workspace(HERON_WORKSPACE, "file:///home/dev/heron", [HERON])
    write_workspace(KESTREL_WORKSPACE, "vscode-remote://ssh-remote%2Bbox/srv/kestrel",
                    [KESTREL])
