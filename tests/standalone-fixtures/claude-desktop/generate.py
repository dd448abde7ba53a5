#!/usr/bin/env python3
"""Writes the Claude Desktop (Code tab and Cowork) fixture; see README.md for the shapes' sources.

Run it here: python3 generate.py
"""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ACCOUNT = "6f1e2d3c-0000-4000-8000-00000000acc1"
ORG = "7a2b3c4d-0000-4000-8000-00000000a0c1"
CODE_LOCAL = "local_0b1c2d3e-0000-4000-8000-000000000c01"
CODE_CLI = "5d6e7f80-0000-4000-8000-000000000c01"
GONE_LOCAL = "local_0b1c2d3e-0000-4000-8000-000000000c02"
GONE_CLI = "5d6e7f80-0000-4000-8000-000000000c02"
TASK_LOCAL = "local_0b1c2d3e-0000-4000-8000-000000000d01"
TASK_CLI = "5d6e7f80-0000-4000-8000-000000000d01"
NEW_LOCAL = "local_0b1c2d3e-0000-4000-8000-000000000d02"
NEW_CLI = "5d6e7f80-0000-4000-8000-000000000d02"
T0 = 1_795_000_000_000  # epoch milliseconds, as the records write them
MCP = {"mcpServers": {"docs": {"command": "docs-server", "args": ["--stdio"]}}}


def write_json(relative, value):
    path = os.path.join(HERE, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        json.dump(value, out, indent=2)
        out.write("\n")


def write_lines(relative, records):
    path = os.path.join(HERE, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")


def record(local, cli, title, **extra):
    value = {"sessionId": local, "cliSessionId": cli, "title": title,
             "createdAt": T0, "lastActivityAt": T0 + 60_000, "lastFocusedAt": T0 + 60_000,
             "isArchived": False, "completedTurns": 1}
    value.update(extra)
    value.update(MCP)
    return value


class Transcript:
    """Claude Code records (the shapes esker's Claude parser reads)."""

    def __init__(self, session, cwd):
        self.session, self.cwd, self.records, self.last, self.n = session, cwd, [], None, 0

    def add(self, kind, message, **extra):
        self.n += 1
        uuid = f"{self.session[:8]}-{self.n:04d}"
        value = {"type": kind, "uuid": uuid, "parentUuid": self.last, "sessionId": self.session,
                 "timestamp": f"2026-11-18T10:{self.n:02d}:00.000Z", "cwd": self.cwd,
                 "version": "2.1.0", "message": message}
        value.update(extra)
        self.records.append(value)
        self.last = uuid

    def prompt(self, text):
        self.add("user", {"role": "user", "content": text})

    def reply(self, msg, blocks, usage):
        self.add("assistant", {"id": msg, "role": "assistant", "model": "claude-sonnet-4-5",
                               "content": blocks, "usage": usage})

    def result(self, tool_id, text, error=False):
        block = {"type": "tool_result", "tool_use_id": tool_id, "content": text}
        if error:
            block["is_error"] = True
        self.add("user", {"role": "user", "content": [block]})


def usage(inp, cache, out):
    return {"input_tokens": inp, "cache_read_input_tokens": cache,
            "cache_creation_input_tokens": 0, "output_tokens": out}


def main():
    for folder in ["Claude", "claude-home"]:
        shutil.rmtree(os.path.join(HERE, folder), ignore_errors=True)
    code = f"Claude/claude-code-sessions/{ACCOUNT}/{ORG}"
    cowork = f"Claude/local-agent-mode-sessions/{ACCOUNT}/{ORG}"

    # Code tab: a session whose transcript is Claude Code's own, and one whose transcript is gone.
    write_json(f"{code}/{CODE_LOCAL}.json",
               record(CODE_LOCAL, CODE_CLI, "Tidy the heron README", cwd="/home/dev/src/heron",
                      originCwd="/home/dev/src/heron", model="claude-opus-4-5"))
    write_json(f"{code}/{GONE_LOCAL}.json",
               record(GONE_LOCAL, GONE_CLI, "Bisect the flaky login test",
                      cwd="/home/dev/src/osprey", model="claude-sonnet-4-5",
                      initialMessage="Bisect the flaky login test on main"))
    code_transcript = Transcript(CODE_CLI, "/home/dev/src/heron")
    code_transcript.prompt("Tidy the README's install section")
    code_transcript.reply("msg_c1", [{"type": "text", "text": "Done, the steps are numbered."}],
                          usage(900, 0, 40))
    write_lines(f"claude-home/projects/-home-dev-src-heron/{CODE_CLI}.jsonl",
                code_transcript.records)

    # Cowork: a task with its transcript in its folder, and a task not started yet.
    write_json(f"{cowork}/{TASK_LOCAL}.json",
               record(TASK_LOCAL, TASK_CLI, "Summarise my trip notes", model="claude-opus-4-5",
                      hostLoopMode=True, userSelectedFolders=["/home/dev/trip"]))
    write_json(f"{cowork}/{NEW_LOCAL}.json",
               record(NEW_LOCAL, NEW_CLI, "Draft the newsletter", model="claude-opus-4-5",
                      hostLoopMode=True, userSelectedFolders=["/home/dev/news"]))
    task = Transcript(TASK_CLI, "/sessions/quiet-otter")
    task.prompt("Summarise the notes I uploaded")
    task.reply("msg_t1", [{"type": "text", "text": "I'll read them first."},
                          {"type": "tool_use", "id": "toolu_t1", "name": "Read",
                           "input": {"file_path": "/sessions/quiet-otter/uploads/notes.md"}}],
               usage(3000, 2000, 60))
    task.result("toolu_t1", "Day 1: Lisbon. Day 2: Porto.")
    task.reply("msg_t2", [{"type": "tool_use", "id": "toolu_t2", "name": "Bash",
                           "input": {"command": "ls /sessions/quiet-otter/outputs/missing"}}],
               usage(3200, 3000, 30))
    task.result("toolu_t2", "ls: cannot access: No such file or directory", error=True)
    task.reply("msg_t3", [{"type": "text", "text": "Two days: Lisbon, then Porto."}],
               usage(3400, 3200, 25))
    folder = f"{cowork}/{TASK_LOCAL}"
    write_lines(f"{folder}/.claude/projects/-sessions-quiet-otter/{TASK_CLI}.jsonl", task.records)
    # The task's own files: never logs.
    write_json(f"{folder}/uploads/notes.json", {"title": "not a record", "cwd": "/x"})
    write_json(f"{folder}/outputs/{TASK_LOCAL}.json", {"cliSessionId": "x", "title": "copy"})
    write_json("Claude/local-agent-mode-sessions/skills-plugin/a/b/skills/docx/manifest.json",
               {"name": "docx"})
    write_json("Claude/local-agent-mode-sessions/cowork_settings.json", {"enabled": True})


if __name__ == "__main__":
    main()
