#!/usr/bin/env python3
"""Writes the Grok Build fixture (see README.md for where each shape comes from).

Run it here: python3 generate.py
"""
import json
import os
import shutil
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CWD = "/home/dev/src/heron"
GROUP = urllib.parse.quote(CWD, safe="")  # Grok URL-encodes the cwd to name the group folder
PARENT = "019f7000-0000-7000-8000-00000000a001"
CHILD = "019f7000-0000-7000-8000-00000000a002"
T0 = 1_795_000_000  # epoch seconds, as the envelope's `timestamp`


class Log:
    def __init__(self, session_id):
        self.session_id = session_id
        self.clock = T0
        self.lines = []
        self.count = 0

    def add(self, method, update):
        self.clock += 2
        self.count += 1
        self.lines.append(json.dumps({
            "timestamp": self.clock,
            "method": method,
            "params": {
                "sessionId": self.session_id,
                "update": update,
                "_meta": {"eventId": f"{self.session_id[-4:]}-{self.count}",
                          "agentTimestampMs": self.clock * 1000},
            },
        }, separators=(",", ":")))

    def acp(self, update):
        self.add("session/update", update)

    def xai(self, update):
        self.add("_x.ai/session/update", update)

    def prompt(self, texts, index, model="grok-build"):
        for text in texts:
            self.acp({"sessionUpdate": "user_message_chunk",
                      "content": {"type": "text", "text": text},
                      "_meta": {"modelId": model, "promptIndex": index}})

    def chunks(self, kind, parts):
        for part in parts:
            self.acp({"sessionUpdate": kind, "content": {"type": "text", "text": part}})

    def call(self, call_id, name, args, status, output, raw_output=None, title=None):
        self.acp({"sessionUpdate": "tool_call", "toolCallId": call_id, "title": name,
                  "kind": "other", "status": "pending", "rawInput": args,
                  "_meta": {"x.ai/tool": {"version": 1, "name": name, "kind": "execute",
                                          "namespace": "builtin", "label": name,
                                          "read_only": False}}})
        self.acp({"sessionUpdate": "tool_call_update", "toolCallId": call_id,
                  "title": title or name, "status": "in_progress"})
        update = {"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": status,
                  "content": [{"type": "content", "content": {"type": "text", "text": output}}]}
        if raw_output is not None:
            update["rawOutput"] = raw_output
        self.acp(update)

    def turn(self, prompt_id, usage, stop="end_turn"):
        self.xai({"sessionUpdate": "turn_completed", "prompt_id": prompt_id,
                  "stop_reason": stop, "usage": usage})

    def write(self, folder, extra_lines=()):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "updates.jsonl"), "w", encoding="utf-8") as out:
            for line in list(self.lines) + list(extra_lines):
                out.write(line + "\n")


def usage(inp, cached, out, reasoning, calls):
    return {"inputTokens": inp, "outputTokens": out, "totalTokens": inp + out,
            "cachedReadTokens": cached, "cacheCreationTokens": 0, "reasoningTokens": reasoning,
            "modelCalls": calls, "apiDurationMs": 4200,
            "modelUsage": {"grok-4.5-build": {"inputTokens": inp, "outputTokens": out,
                                              "cachedReadTokens": cached}}}


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        json.dump(value, out, indent=2)
        out.write("\n")


def summary(session_id, title, created, **extra):
    value = {
        "info": {"id": session_id, "cwd": CWD},
        "session_summary": title.lower(),
        "created_at": created,
        "updated_at": created,
        "num_messages": 0,
        "num_chat_messages": 0,
        "current_model_id": "grok-build",
        "next_trace_turn": 0,
        "chat_format_version": 1,
        "generated_title": title,
    }
    value.update(extra)
    return value


def main():
    sessions = os.path.join(HERE, "sessions")
    shutil.rmtree(sessions, ignore_errors=True)
    parent_dir = os.path.join(sessions, GROUP, PARENT)
    child_dir = os.path.join(sessions, GROUP, CHILD)

    log = Log(PARENT)
    log.acp({"sessionUpdate": "available_commands_update", "availableCommands": []})
    log.prompt(["Why does `cargo test` fail in heron?", "Fix it if you can."], 0)
    log.xai({"sessionUpdate": "response_started", "message_id": "m1", "model": "grok-4.5-build",
             "input_tokens": 900})
    log.chunks("agent_thought_chunk", ["Run the tests ", "first."])
    log.call("call-1", "run_terminal_cmd", {"command": "cargo test"}, "completed",
             "test parse ... FAILED\nexit code 101", raw_output={"exit_code": 101},
             title="cargo test")
    log.xai({"sessionUpdate": "hook_execution", "event_name": "post_tool_use",
             "tool_name": "run_terminal_cmd", "runs": []})
    log.call("call-2", "read_file", {"target_file": "src/parse.rs"}, "completed",
             "fn parse(input: &str) -> Config { todo!() }")
    log.chunks("agent_message_chunk", ["`parse` is still a ", "`todo!()`; I will ask a helper."])
    log.call("call-3", "task", {"description": "find callers", "subagent_type": "explore"},
             "completed", "parse is called from main.rs and cli.rs")
    log.xai({"sessionUpdate": "subagent_spawned", "subagent_id": CHILD,
             "parent_session_id": PARENT, "child_session_id": CHILD,
             "subagent_type": "explore", "description": "find callers"})
    log.call("call-4", "search_replace", {"file_path": "src/parse.rs"}, "failed",
             "old_string not found")
    log.chunks("agent_message_chunk", ["I could not apply the edit; ", "parse needs a body."])
    log.turn("p-1", usage(12000, 9000, 600, 200, 4))
    log.prompt(["Write the body then."], 1)
    log.acp({"sessionUpdate": "plan", "entries": [{"content": "write parse", "status": "pending"}]})
    log.call("call-5", "write", {"file_path": "src/parse.rs", "content": "..."}, "completed",
             "wrote src/parse.rs")
    log.chunks("agent_message_chunk", ["Done: `parse` now reads key=value lines."])
    log.turn("p-2", usage(15000, 12000, 400, 100, 2))
    log.acp({"sessionUpdate": "user_message_chunk",
             "content": {"type": "text", "text": "Background task finished: cargo build"},
             "_meta": {"hostTurn": True}})
    log.chunks("agent_message_chunk", ["The build finished cleanly."])
    log.turn("p-3", usage(16000, 15000, 50, 0, 1))
    # A half-written line a crash left, then the next turn: skipped with a counted warning.
    torn = '{"timestamp":1795000999,"method":"session/update","params":{"sessionId":"' + PARENT
    log.write(parent_dir, extra_lines=[torn])
    with open(os.path.join(parent_dir, "updates.jsonl"), "a", encoding="utf-8") as out:
        extra = Log(PARENT)
        extra.clock = T0 + 1000
        extra.count = 100
        extra.prompt(["Thanks, that is all."], 2)
        extra.chunks("agent_message_chunk", ["You're welcome."])
        extra.turn("p-4", usage(16500, 16000, 10, 0, 1))
        for line in extra.lines:
            out.write(line + "\n")

    write_json(os.path.join(parent_dir, "summary.json"),
               summary(PARENT, "Fix heron's failing parse test", "2026-11-18T10:00:00Z",
                       head_branch="main", agent_name="grok-build"))
    write_json(os.path.join(parent_dir, "signals.json"),
               {"turnCount": 4, "userMessageCount": 4, "assistantMessageCount": 5,
                "toolCallCount": 5, "toolFailureCount": 1, "primaryModelId": "grok-build"})
    with open(os.path.join(parent_dir, "chat_history.jsonl"), "w", encoding="utf-8") as out:
        out.write(json.dumps({"type": "user", "content": [{"type": "text",
                              "text": "<user_query>\nWhy does cargo test fail?\n</user_query>"}],
                              "prompt_index": 0}) + "\n")
    with open(os.path.join(parent_dir, "rewind_points.jsonl"), "w", encoding="utf-8") as out:
        out.write(json.dumps({"prompt_index": 0, "files": []}) + "\n")
    write_json(os.path.join(parent_dir, "plan.json"), {"entries": []})
    write_json(os.path.join(parent_dir, "subagents", CHILD, "meta.json"),
               {"subagent_id": CHILD, "parent_session_id": PARENT, "child_session_id": CHILD,
                "subagent_type": "explore", "description": "find callers",
                "prompt": "Find the callers of parse", "status": "completed",
                "started_at": "2026-11-18T10:01:00Z"})

    child = Log(CHILD)
    child.clock = T0 + 60
    child.prompt(["Find the callers of parse"], 0, model="grok-4.5-build")
    child.call("call-c1", "grep", {"pattern": "parse("}, "completed",
               "src/main.rs:3\nsrc/cli.rs:9")
    child.chunks("agent_message_chunk", ["parse is called from main.rs and cli.rs"])
    child.turn("pc-1", usage(3000, 1000, 80, 10, 2))
    child.write(child_dir)
    write_json(os.path.join(child_dir, "summary.json"),
               summary(CHILD, "Find parse callers", "2026-11-18T10:01:00Z",
                       session_kind="subagent", current_model_id="grok-4.5-build"))


if __name__ == "__main__":
    main()
