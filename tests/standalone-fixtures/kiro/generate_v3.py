#!/usr/bin/env python3
"""Writes the Kiro CLI v3 (KAS) fixture `v3/sessions/` (see README.md, section `v3/`, for where
each shape comes from). The values are made up; the shapes are the ones public readers of real
v3 sessions pin in their tests.

Run it here: python3 generate_v3.py
"""
import json
import os
import shutil
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "v3", "sessions")
T0 = datetime(2026, 11, 2, 9, 14, 3, 120000, tzinfo=timezone.utc)


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Log:
    """One session folder: `session.json` and the `messages.jsonl` lines."""

    def __init__(self, workspace, session_id, metadata, start):
        self.folder = os.path.join(ROOT, workspace, session_id)
        self.metadata = dict(metadata, id=session_id, createdAt=iso(start))
        self.clock = start
        self.lines = []
        self.count = 0

    def add(self, payload, seconds=2):
        self.clock += timedelta(seconds=seconds, milliseconds=137)
        self.count += 1
        record = {
            "id": f"{self.metadata['id'][5:13]}-{self.count:04d}",
            "timestamp": iso(self.clock),
            "payload": payload,
        }
        self.lines.append(json.dumps(record, separators=(",", ":")))

    def raw(self, text):
        """A line written as is (a half-written line left by a crash)."""
        self.lines.append(text)

    def write(self):
        os.makedirs(self.folder, exist_ok=True)
        self.metadata["lastModifiedAt"] = iso(self.clock)
        with open(os.path.join(self.folder, "session.json"), "w") as out:
            json.dump(self.metadata, out, indent=2)
            out.write("\n")
        with open(os.path.join(self.folder, "messages.jsonl"), "w") as out:
            out.write("\n".join(self.lines) + "\n")


def user(text):
    return {"type": "user", "content": text, "images": [], "documents": []}


def say(text, execution):
    return {"type": "assistant", "operationType": "Say", "content": text, "executionId": execution}


def reasoning(execution, model):
    # Kiro stores the model's thinking encrypted: the content is a literal "...", the thinking
    # itself only as the signature the model API returns.
    return {
        "type": "assistant",
        "operationType": "Reasoning",
        "content": "...",
        "reasoningSignature": "EqQBCkgIBxABGAIqQKx0c2VjcmV0LXNpZ25hdHVyZS1ub3QtdGV4dA==",
        "reasoningModelId": model,
        "executionId": execution,
    }


def call(call_id, name, kind, args, status="completed"):
    return {
        "type": "tool_call",
        "toolCallId": call_id,
        "toolName": name,
        "args": args,
        "status": status,
        "kind": kind,
    }


def result(call_id, content, success=True):
    return {"type": "tool_result", "toolCallId": call_id, "content": content, "success": success}


def usage(execution, credits, tools):
    return {
        "type": "usage_summary",
        "promptTurnSummaries": [
            {"unit": "credit", "unitPlural": "credits", "usage": credits, "usedTools": tools}
        ],
        "elapsedTime": 38911,
        "status": "success",
        "executionId": execution,
        "requestIds": [f"req-{execution}"],
    }


def heron_fix():
    """Two turns: encrypted reasoning, shell calls (one exiting 101), a denied write, a
    sub-agent, and a half-written line a crash left before the second turn's reply."""
    log = Log(
        "3f9a1c0e5b7d2a64",
        "sess_4b1f6c2e-8d3a-4f5b-9c7e-1a2b3c4d5e6f",
        {
            "schemaVersion": "1.0.0",
            "dataModelVersion": 1,
            "title": "Fix the failing heron parse test",
            "workspacePaths": ["/home/dev/src/heron"],
            "rootPaths": ["/home/dev/src/heron"],
            "modelId": "claude-sonnet-4.5",
            "agentMode": "default",
            "status": "idle",
        },
        T0,
    )
    model = "qdev::claude-sonnet-4.5"
    log.add({"type": "session_start", "content": "You are Kiro CLI, an AI assistant..."}, 0)
    log.add(user("Why does `cargo test` fail in heron?"))
    log.add({"type": "turn_start", "executionId": "exec-h1"}, 0)
    log.add(reasoning("exec-h1", model))
    log.add(say("Let me run the tests first.", "exec-h1"))
    log.add(call("tooluse_h1", "execute_bash", "execute",
                 {"command": "cargo test", "description": "Run the tests", "cwd": None,
                  "run_in_background": False, "timeout": None}))
    log.add(result("tooluse_h1",
                   "Output:\ntest parse::tests::header ... FAILED\n\nfailures:\n    "
                   "parse::tests::header\n\ntest result: FAILED. 11 passed; 1 failed\n\n"
                   "Exit Code: 101"), 9)
    log.add(call("tooluse_h2", "read_file", "read", {"path": "src/parse.rs"}))
    log.add(result("tooluse_h2", "fn parse_header(line: &str) -> Option<Header> {\n"
                                 "    let (name, value) = line.split_once(':')?;\n"))
    log.add({"type": "pending_interaction", "interactionType": "tool_approval",
             "toolCallId": "tooluse_h3", "question": "Write File"})
    log.add({"type": "interaction_resolved", "toolCallId": "tooluse_h3"})
    log.add(call("tooluse_h3", "fs_write", "edit",
                 {"path": "src/parse.rs", "command": "create", "file_text": "// rewritten\n"},
                 "denied"))
    log.add(result("tooluse_h3", "Tool use was denied by the user", False))
    log.add(say("`parse_header` splits on the first `:` and keeps the value's leading space, "
                "so `header` compares `\" text/plain\"`. Shall I trim it?", "exec-h1"))
    log.add(usage("exec-h1", 0.42, ["execute_bash", "read_file", "fs_write"]), 0)
    log.add({"type": "session_metadata", "key": "contextUsage",
             "value": {"usagePercentage": 3.2}}, 0)
    log.add({"type": "turn_end", "executionId": "exec-h1", "stopReason": "end_turn"}, 0)

    log.add(user("Yes, trim it."), 40)
    log.add({"type": "turn_start", "executionId": "exec-h2"}, 0)
    log.raw('{"id":"4b1f6c2e-crash","timestamp":"2026-11-02T09:16:00.000Z","payload":'
            '{"type":"assistant","operationType":"Say","content":"Trimming the')
    log.add(reasoning("exec-h2", model))
    log.add({"type": "sub_agent_start", "subSessionId": "sess_9d8c7b6a-5f4e-4d3c-8b2a-19f8e7d6c5b4",
             "subAgentName": "reviewer", "prompt": "Review the trim in src/parse.rs"})
    log.add({"type": "sub_agent_complete",
             "subSessionId": "sess_9d8c7b6a-5f4e-4d3c-8b2a-19f8e7d6c5b4",
             "response": "The trim is right; add a test for a value with no space."}, 12)
    log.add(call("tooluse_h4", "str_replace", "edit",
                 {"path": "src/parse.rs", "oldStr": "Some(Header { name, value })",
                  "newStr": "Some(Header { name, value: value.trim() })"}))
    log.add(result("tooluse_h4", "Replaced 1 occurrence in src/parse.rs"))
    log.add(call("tooluse_h5", "execute_bash", "execute",
                 {"command": "cargo test", "description": "Run the tests again", "cwd": None,
                  "run_in_background": False, "timeout": None}))
    log.add(result("tooluse_h5", "Output:\ntest result: ok. 12 passed; 0 failed\n\n"
                                 "Exit Code: 0"), 8)
    log.add(say("Fixed: `parse_header` now trims the value, and all 12 tests pass.", "exec-h2"))
    log.add(usage("exec-h2", 0.31, ["str_replace", "execute_bash"]), 0)
    log.add({"type": "turn_end", "executionId": "exec-h2", "stopReason": "end_turn"}, 0)
    return log


def heron_logs():
    """A session on Auto: a search, then a summarization (tombstone and `Summary`) and a turn
    after it."""
    log = Log(
        "a07c2e91d4f35b18",
        "sess_c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f",
        {
            "schemaVersion": "1.0.0",
            "dataModelVersion": 1,
            "title": "What heron logs",
            "workspacePaths": ["/home/dev/src/heron-docs"],
            "rootPaths": ["/home/dev/src/heron-docs"],
            "modelId": "auto",
            "agentMode": "default",
            "status": "idle",
        },
        T0 + timedelta(hours=3),
    )
    model = "qdev::auto"
    log.add(user("What does heron log on startup?"), 0)
    log.add({"type": "turn_start", "executionId": "exec-l1"}, 0)
    log.add(reasoning("exec-l1", model))
    log.add(call("tooluse_l1", "grep", "search", {"pattern": "info!\\(", "path": "src/main.rs"}))
    log.add(result("tooluse_l1", "src/main.rs:14:    info!(\"heron {} listening on {}\", "
                                 "VERSION, addr);"))
    log.add(say("On startup heron logs its version and the address it listens on.", "exec-l1"))
    log.add(usage("exec-l1", 0.08, ["grep"]), 0)
    log.add({"type": "turn_end", "executionId": "exec-l1", "stopReason": "end_turn"}, 0)
    first = log.lines[0]
    log.add({"type": "tombstone", "kind": "summarization",
             "effectiveFromMessageId": json.loads(first)["id"]}, 60)
    log.add({"type": "assistant", "operationType": "Summary",
             "content": "The user asked what heron logs on startup: its version and address."})
    log.add(user("And where does it log to?"), 30)
    log.add({"type": "turn_start", "executionId": "exec-l2"}, 0)
    log.add(say("To stderr, one JSON object a line.", "exec-l2"))
    log.add({"type": "turn_end", "executionId": "exec-l2", "stopReason": "end_turn"}, 0)
    return log


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    for log in (heron_fix(), heron_logs()):
        log.write()


if __name__ == "__main__":
    main()
