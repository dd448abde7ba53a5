#!/usr/bin/env python3
"""Writes the Junie fixture (see README.md for where each shape comes from).

Run it here: python3 generate.py
"""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
SESSIONS = os.path.join(HERE, "home", ".junie", "sessions")
HERON = "session-261110-101500-h3rn"
KESTREL = "session-261110-120000-k5tl"
T0 = 1_794_305_700_000  # 2026-11-10T10:15:00Z, epoch milliseconds as Junie writes them


class Log:
    def __init__(self, start):
        self.clock = start
        self.lines = []

    def add(self, record, step=700):
        self.clock += step
        record = dict(record)
        record["timestampMs"] = self.clock
        self.lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))

    def raw(self, text):
        self.lines.append(text)

    def a2ux(self, agent, state="IN_PROGRESS"):
        agent = dict(agent)
        agent.setdefault("agent", {"kind": "MainAgent", "id": "main", "name": "main"})
        self.add({"kind": "SessionA2uxEvent", "event": {"state": state, "agentEvent": agent}})

    def usage(self, model, fresh, output, cache_read=0, cache_write=0):
        self.a2ux({"kind": "LlmResponseMetadataEvent", "modelUsage": [{
            "model": model, "cost": 0.0, "inputTokens": fresh, "cacheInputTokens": cache_read,
            "cacheCreateTokens": cache_write, "outputTokens": output, "time": 900}]})


def text(value):
    return {"kind": "text", "text": value}


def heron():
    log = Log(T0)
    cwd = "/home/dev/src/heron"
    log.add({"kind": "TaskStartedEvent", "taskId": "task-261110-101500-a1"})
    typed = "cargo test fails in heron since the last merge; find out why and fix it"
    log.add({"kind": "UserPromptEvent", "requestId": "req-h1",
             "prompt": "<additional_context>branch: main</additional_context>\n" + typed,
             "presentablePrompt": typed, "askMode": False, "thinkMore": False,
             "delivery": "Delivered"})
    log.add({"kind": "UserMessagesCommittedToHistory", "userMessageIds": ["req-h1"]})
    log.a2ux({"kind": "CurrentDirectoryUpdatedEvent", "currentDirectory": cwd})
    log.a2ux({"kind": "AgentTaskNameUpdatedEvent", "name": "Fix failing cargo test"})
    log.usage("anthropic/claude-sonnet-4-5", 2130, 96, cache_read=0, cache_write=11840)
    log.a2ux({"kind": "AgentThoughtBlockUpdatedEvent", "stepId": "thought-1",
              "text": "Run the failing test first to see the error."})
    log.a2ux({"kind": "MarkdownBlockUpdatedEvent", "stepId": "md-1", "text": "Running"})
    log.a2ux({"kind": "MarkdownBlockUpdatedEvent", "stepId": "md-1",
              "text": "Running the test suite to see what fails."})
    log.a2ux({"kind": "TerminalBlockUpdatedEvent", "stepId": "term-1",
              "command": "cargo test -p heron", "status": "IN_PROGRESS"})
    log.a2ux({"kind": "TerminalBlockUpdatedEvent", "stepId": "term-1",
              "command": "cargo test -p heron", "status": "FAILED", "exitCode": 101,
              "output": "error[E0425]: cannot find value `config_path` in this scope\n"
                        " --> src/lib.rs:42:17"})
    # A line the agent was writing when the machine went down: skipped, counted.
    log.raw('{"kind":"SessionA2uxEvent","timestampMs":1794305709999,"event":{"state":"IN_PRO')
    log.usage("anthropic/claude-sonnet-4-5", 310, 140, cache_read=13970)
    log.a2ux({"kind": "ViewFilesBlockUpdatedEvent", "stepId": "view-1", "status": "COMPLETED",
              "files": [{"relativePath": cwd + "/src/lib.rs"},
                        {"relativePath": cwd + "/src/config.rs"}]})
    log.a2ux({"kind": "FileChangesBlockUpdatedEvent", "stepId": "edit-1", "status": "COMPLETED",
              "changes": [{"beforeRelativePath": "src/lib.rs", "afterRelativePath": "src/lib.rs",
                           "beforeContent": text("let path = config_path;\n"),
                           "afterContent": text("let path = config::path();\n")}]})
    log.a2ux({"kind": "TerminalBlockUpdatedEvent", "stepId": "term-2",
              "command": "cargo test -p heron", "status": "COMPLETED", "exitCode": 0,
              "output": "test result: ok. 48 passed; 0 failed"})
    log.a2ux({"kind": "McpBlockUpdatedEvent", "stepId": "mcp-1", "toolName": "esker_search",
              "arguments": {"query": "config_path heron"}, "status": "COMPLETED",
              "details": "2 sessions mention config_path"})
    log.usage("anthropic/claude-sonnet-4-5", 420, 210, cache_read=14200)
    log.a2ux({"kind": "ResultBlockUpdatedEvent", "stepId": "result-1", "cancelled": False,
              "changes": [], "result": "<!-- ANSWER -->The merge renamed `config_path` to "
                                       "`config::path()`; src/lib.rs now calls it and the "
                                       "48 tests pass."})
    # The finished task replays its blocks with state COMPLETED: they fold into their steps.
    for step in ("term-1", "edit-1", "result-1"):
        replay = {
            "term-1": {"kind": "TerminalBlockUpdatedEvent", "stepId": "term-1",
                       "command": "cargo test -p heron", "status": "FAILED", "exitCode": 101,
                       "output": "error[E0425]: cannot find value `config_path` in this scope\n"
                                 " --> src/lib.rs:42:17"},
            "edit-1": {"kind": "FileChangesBlockUpdatedEvent", "stepId": "edit-1",
                       "status": "COMPLETED",
                       "changes": [{"beforeRelativePath": "src/lib.rs",
                                    "afterRelativePath": "src/lib.rs",
                                    "beforeContent": text("let path = config_path;\n"),
                                    "afterContent": text("let path = config::path();\n")}]},
            "result-1": {"kind": "ResultBlockUpdatedEvent", "stepId": "result-1",
                         "cancelled": False, "changes": [],
                         "result": "<!-- ANSWER -->The merge renamed `config_path` to "
                                   "`config::path()`; src/lib.rs now calls it and the "
                                   "48 tests pass."},
        }[step]
        log.a2ux(replay, state="COMPLETED")
    log.add({"kind": "SessionTitleSetEvent", "name": "Fix the failing heron tests"})
    # The next task: its compaction, then the prompt.
    log.add({"kind": "TaskStartedEvent", "taskId": "task-261110-102000-b2"})
    log.a2ux({"kind": "ContextCompactionBlockUpdatedEvent", "stepId": "compact-1",
              "summary": "Fixed the config_path rename in src/lib.rs; tests pass."})
    log.add({"kind": "UserPromptEvent", "requestId": "req-h2",
             "prompt": "add a regression test for the config path",
             "presentablePrompt": "add a regression test for the config path",
             "delivery": "Delivered"})
    log.usage("anthropic/claude-sonnet-4-5", 95, 64, cache_read=15010)
    log.a2ux({"kind": "CustomAgentBlockUpdatedEvent", "stepId": "agent-1",
              "name": "test-writer", "prompt": "write a test for config::path()",
              "status": "IN_PROGRESS"})
    log.a2ux({"kind": "CustomAgentBlockUpdatedEvent", "stepId": "agent-1",
              "name": "test-writer", "prompt": "write a test for config::path()",
              "status": "COMPLETED", "details": "Wrote tests/config_path.rs (1 test)."})
    log.a2ux({"kind": "FileChangesBlockUpdatedEvent", "stepId": "edit-2", "status": "COMPLETED",
              "changes": [{"afterRelativePath": "tests/config_path.rs",
                           "afterContent": text("#[test]\nfn path_is_set() {\n"
                                                "    assert!(heron::config::path().is_some());\n}\n")}]})
    log.add({"kind": "SystemMessageEvent", "text": "Junie is running in brave mode",
             "details": ""})
    log.a2ux({"kind": "ResultBlockUpdatedEvent", "stepId": "result-2",
              "result": "<!-- ANSWER -->Added tests/config_path.rs; it passes."})
    return log


def kestrel():
    log = Log(T0 + 6_300_000)
    log.add({"kind": "TaskStartedEvent", "taskId": "task-261110-120000-c3"})
    log.usage("openai/gpt-5", 5200, 88)
    log.a2ux({"kind": "TerminalBlockUpdatedEvent", "stepId": "term-1", "command": "ls src",
              "status": "COMPLETED", "exitCode": 0, "output": "main.rs\nlog.rs"})
    log.a2ux({"kind": "ResultBlockUpdatedEvent", "stepId": "result-1",
              "result": "<!-- ANSWER -->kestrel has two modules: main.rs and log.rs."})
    log.a2ux({"kind": "AgentFailureEvent", "message": "Rate limit reached; the task stopped",
              "errorCode": "RateLimited"}, state="FAILED")
    return log


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)


def main():
    shutil.rmtree(os.path.join(HERE, "home"), ignore_errors=True)
    index = [
        {"sessionId": HERON, "createdAt": T0, "updatedAt": T0 + 60_000,
         "projectDir": "/home/dev/src/heron", "taskName": "Fix failing cargo test",
         "status": "Done"},
        {"sessionId": KESTREL, "createdAt": T0 + 6_300_000, "updatedAt": T0 + 6_310_000,
         "projectDir": "/home/dev/src/kestrel", "taskName": "List the kestrel modules",
         "status": "Failed"},
    ]
    write(os.path.join(SESSIONS, "index.jsonl"),
          "".join(json.dumps(entry, separators=(",", ":")) + "\n" for entry in index))
    for session, log, state in [
        (HERON, heron(), {"issue": {"description": "cargo test fails in heron"}}),
        # Headless: no UserPromptEvent; the task is the issue, hooks' context in front of it.
        (KESTREL, kestrel(), {"issue": {"description":
            "<additional_context>\nrecent sessions: none\n</additional_context>\n"
            "list the modules of kestrel"}}),
    ]:
        folder = os.path.join(SESSIONS, session)
        write(os.path.join(folder, "events.jsonl"), "\n".join(log.lines) + "\n")
        write(os.path.join(folder, "state.json"), json.dumps(state, indent=2) + "\n")
        write(os.path.join(folder, "transcript.md"), "# " + session + "\n\n(rendered log)\n")
        # Per-task folders hold the agent's own state: never read as logs.
        write(os.path.join(folder, "task-1", "plan.json"),
              json.dumps({"kind": "SessionA2uxEvent", "timestampMs": T0,
                          "event": {"agentEvent": {"kind": "AgentPlanUpdatedEvent"}}}) + "\n")


if __name__ == "__main__":
    main()
