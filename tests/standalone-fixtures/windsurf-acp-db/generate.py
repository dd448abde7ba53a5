#!/usr/bin/env python3
"""Writes stores.json, the rows of the Windsurf / Devin Desktop ACP message-store fixture (see
README.md). tests/it/harnesses/windsurf_acp.rs builds the SQLite files from it at test time.

Run it here: python3 generate.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PLOVER = "acp/devin-cli/amber-plover"
WREN = "acp/devin-cli/quiet-wren"
EXPLORE_TASK = "Find where the linker is configured"


def at(second):
    return f"2026-10-02T09:00:{second:02d}.000Z"


def chunk(update, text, second, **ids):
    """One chunk of a message row: an ACP session/update, its `sessionUpdate` left out when
    `update` is None (the row's kind says it)."""
    meta = {"cognition.ai/timestamp": at(second)}
    for name, value in ids.items():
        meta["cognition.ai/" + name] = value
    value = {"content": {"type": "text", "text": text}, "_meta": meta}
    if update:
        value = {"sessionUpdate": update, **value}
    return value


def row(position, kind, **payload):
    return {"position": position, "kind": kind, "payload": {"kind": kind, **payload}}


def explore_rows():
    """The rows of the sub-agent the amber-plover session started: payloads of the same shapes
    as a store's rows, without a position (a reader numbers them by their place)."""
    return [
        {"kind": "user_message", "content": [
            chunk("user_message_chunk", EXPLORE_TASK, 6, clientMessageId="s1")]},
        {"kind": "agent_thought", "content": [
            chunk("agent_thought_chunk", "Search the cargo config.", 6,
                  streamingMessageId="s2")]},
        {"kind": "tool_call", "content": {
            "toolCallId": "grep-1", "title": "Search linker", "kind": "search",
            "status": "completed", "rawInput": {"pattern": "linker"},
            "content": [{"type": "content",
                         "content": {"type": "text", "text": ".cargo/config.toml:2"}}],
            "_meta": {"cognition.ai/timestamp": at(7),
                      "cognition.ai/inferenceToolName": "grep"}}},
        {"kind": "agent_message", "content": [
            chunk("agent_message_chunk", "In .cargo/config.toml.", 7, streamingMessageId="s3")]},
    ]


def info(session_id, title, cwd, model, created=None):
    value = {"sessionId": session_id, "title": title, "cwd": cwd,
             "configOptions": [{"id": "model", "currentValue": model}]}
    if created:
        value["_meta"] = {"cognition.ai/createdAt": created}
    return json.dumps(value)


def main():
    plover = {
        "uuid": "9d1f6c2e-3b4a-4e5f-8a7b-6c5d4e3f2a1b",
        "why": "named by a windsurf.acp.messageStore.session row; every row kind",
        "meta": {"schema_version": "1", "message_count": "10",
                 "info": info(PLOVER, "Plover's own title", "/home/u/plover", "swe-2-high",
                              "2026-10-02T08:59:58.000Z")},
        "messages": [
            row(0, "user_message", content=[
                chunk("user_message_chunk", "Why is the build slow?", 1, clientMessageId="m1"),
                chunk("user_message_chunk", "Look at build.rs.", 1, clientMessageId="m1")]),
            row(1, "agent_thought", content=[chunk(None, "Profile ", 2), chunk(None, "first.", 2)]),
            row(2, "tool_call", id="tool:exec-1", content={
                "toolCallId": "exec-1", "title": "Run cargo build --timings", "kind": "execute",
                "status": "failed", "rawInput": {"command": "cargo build --timings"},
                "content": [{"type": "content",
                             "content": {"type": "text", "text": "error: linker failed"}}],
                "_meta": {"cognition.ai/timestamp": at(3),
                          "cognition.ai/inferenceToolName": "exec",
                          "terminal_exit": {"exit_code": 2}}}),
            row(3, "agent_message", content=[
                chunk("agent_message_chunk", "The linker ", 4, streamingMessageId="a1"),
                chunk("agent_message_chunk", "fails.", 4, streamingMessageId="a1")]),
            row(4, "tool_call", sourceEventTimestampMs=1759395605000, content={
                "toolCallId": "read-1", "title": "Read build.rs", "kind": "read",
                "status": "completed", "rawInput": {"path": "build.rs"},
                "rawOutput": "fn main() {}",
                "_meta": {"cognition.ai/inferenceToolName": "read_file"}}),
            row(5, "plan", content={"sessionUpdate": "plan",
                                    "entries": [{"content": "Switch linker",
                                                 "status": "completed"}]}),
            row(6, "tool_call", content={
                "toolCallId": "spawn-1", "title": "Explore", "kind": "other",
                "status": "completed",
                "rawInput": {"title": "Explore", "task": EXPLORE_TASK,
                             "profile": "subagent_explore"},
                "rawOutput": "The linker is set in .cargo/config.toml.",
                "_meta": {"cognition.ai/timestamp": at(6),
                          "cognition.ai/inferenceToolName": "run_subagent"}}),
            row(7, "subagent", agentId="a7", title="Explore", task=EXPLORE_TASK,
                profile="subagent_explore", status="completed", isBackground=False,
                childMessages=explore_rows()),
            row(8, "agent_message", content=[chunk(None, "Fixed: ", 8)]),
            row(9, "agent_message", content=[chunk(None, "use lld.", 9)]),
        ],
    }
    wren = {
        "uuid": "2b7c1d0e-9f8a-4c3b-a2d1-e0f9a8b7c6d5",
        "why": "named by its own meta.info only (no row in the global store)",
        "meta": {"schema_version": "6", "message_count": "3",
                 "info": info(WREN, "List the crates", "/home/u/wren", "swe-1-6")},
        "messages": [
            row(0, "user_message", content=[
                chunk("user_message_chunk", "List the crates", 20, clientMessageId="w1")]),
            row(1, "tool_call", content={
                "toolCallId": "exec-9", "title": "Run ls crates", "kind": "execute",
                "status": "completed", "rawInput": {"command": "ls crates"},
                "content": [{"type": "content",
                             "content": {"type": "text", "text": "core\ncli"}}],
                "_meta": {"cognition.ai/timestamp": at(21),
                          "cognition.ai/inferenceToolName": "exec",
                          "terminal_exit": {"exit_code": 0}}}),
            row(2, "agent_message", content=[
                chunk("agent_message_chunk", "Two: core and cli.", 22, streamingMessageId="w2")]),
        ],
    }
    placeholder = {
        "uuid": "0c0c0c0c-1111-4222-8333-444455556666",
        "why": "no messages: a cloud session's local placeholder, no session",
        "meta": {"schema_version": "1", "message_count": "0",
                 "info": json.dumps({"sessionId": "acp/devin-cloud/far-off"})},
        "messages": [],
    }
    global_items = {
        "windsurf.acp.messageStore.session." + PLOVER:
            {"uuid": plover["uuid"], "lastUpdated": 1759395610000},
        "windsurf.acp.sessioninfo.session." + PLOVER: {
            "providerId": "devin-cli",
            "info": {"sessionId": PLOVER, "title": "Speed up the build",
                     "cwd": "file:///home/u/plover",
                     "configOptions": [{"id": "model", "currentValue": "swe-1-6"}],
                     "_meta": {"cognition.ai/createdAt": "2026-10-02T09:00:00.000Z"}}},
        # Beside the ACP keys in the real store: never read.
        "windsurfAuthStatus": {"apiKey": "devin-session-token$never-read"},
    }
    with open(os.path.join(HERE, "stores.json"), "w") as out:
        json.dump({"global": global_items, "stores": [plover, wren, placeholder]}, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
