#!/usr/bin/env python3
"""Writes the Devin CLI fixture (see README.md for where each shape comes from).

Run it here: python3 generate.py
"""
import json
import os
import shutil
import sqlite3
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
CLI = os.path.join(HERE, "cli")
TRANSCRIPTS = os.path.join(CLI, "transcripts")
MAIN = "bald-ketch"      # Devin's session ids are slugs (sessions.id)
LEGACY = "quiet-otter"
HIDDEN = "hidden-heron"  # a row with no trajectory: nothing to read
CWD = "/home/dev/src/heron"
T0 = 1_795_000_000       # epoch seconds, as sessions.db stores them


def iso(seconds):
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Steps:
    def __init__(self, start):
        self.clock = start
        self.steps = []

    def add(self, source, message, **fields):
        self.clock += 3
        step = {"step_id": len(self.steps) + 1, "timestamp": iso(self.clock),
                "source": source, "message": message}
        step.update(fields)
        self.steps.append(step)

    def raw(self, value):
        """A record that is not a step (what a bad write could leave)."""
        self.steps.append(value)


def metrics(prompt, completion, cached, reasoning=None):
    value = {"prompt_tokens": prompt, "completion_tokens": completion,
             "cached_tokens": cached, "cost_usd": None}
    if reasoning is not None:
        value["extra"] = {"reasoning_tokens": reasoning}
    return value


def main_trajectory():
    s = Steps(T0)
    s.add("system", "You are Devin, a software engineering agent.")
    # Turn 1: a prompt, reasoning, a reply with two calls and their results (one failing).
    s.add("user", "Why does `cargo test` fail in heron? Fix it.",
          metadata={"is_user_input": True, "created_at": iso(T0 + 3)})
    s.add("agent", "Let me run the tests and look at the parser.",
          model_name="claude-sonnet-4-6",
          reasoning_content="The failure is probably in the parse module; run the tests first.",
          tool_calls=[
              {"tool_call_id": "toolu_01", "function_name": "exec",
               "arguments": {"command": "cargo test"}},
              {"tool_call_id": "toolu_02", "function_name": "read_file",
               "arguments": {"path": "src/parse.rs"}},
          ],
          observation={"results": [
              {"source_call_id": "toolu_01",
               "content": "test parse::empty ... FAILED\nerror: test failed",
               "extra": {"exit_code": 101}},
              {"source_call_id": "toolu_02",
               "content": [{"type": "text", "text": "pub fn parse(input: &str) -> Ast {"}]},
          ]},
          metrics=metrics(12000, 400, 9000, reasoning=120),
          extra={"generation_model": "claude-sonnet-4-6", "committed_acu_cost": 0.02})
    s.add("agent", "",
          tool_calls=[{"tool_call_id": "toolu_03", "function_name": "edit",
                       "arguments": {"path": "src/parse.rs", "old": "Ast {", "new": "Ast {\n    if input.is_empty() { return Ast::Empty; }"}}],
          observation={"results": [{"source_call_id": "toolu_03", "content": "Edited src/parse.rs"}]},
          metrics=metrics(15000, 300, 12000))
    s.add("agent", "The empty input case panicked; parse now returns `Ast::Empty` for it.",
          metrics=metrics(15500, 80, 15000))
    # Context the CLI injected as a user step: not the user's words.
    s.add("user", "<system-reminder>The user changed the working tree.</system-reminder>",
          metadata={"is_user_input": False})
    # A record that is not a step: skipped with a warning.
    s.raw("step lost in a bad write")
    # Turn 2: a prompt given as content parts, a sub-agent delegation, a reply.
    s.add("user", [{"type": "text", "text": "Also find every caller of parse."},
                   {"type": "image", "source": {"media_type": "image/png", "path": "shot.png"}}],
          metadata={"is_user_input": True})
    s.add("agent", "I'll ask a sub-agent to search.",
          tool_calls=[{"tool_call_id": "toolu_04", "function_name": "task",
                       "arguments": {"prompt": "find callers of parse"}}],
          observation={"results": [
              {"source_call_id": "toolu_04", "content": "3 callers: main.rs, cli.rs, repl.rs",
               "subagent_trajectory_ref": [{"session_id": "swift-finch",
                                            "trajectory_path": "transcripts/swift-finch.json"}]},
          ]},
          metrics=metrics(16000, 90, 15500))
    s.add("agent", "parse is called from main.rs, cli.rs and repl.rs.",
          metrics=metrics(16500, 40, 16000))
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": MAIN,
        "agent": {"name": "devin", "version": "3000.5.20", "model_name": "claude-sonnet-4-6",
                  "extra": {"backend_type": "Windsurf", "agent_mode": "bypass"}},
        "steps": s.steps,
        "final_metrics": {"total_prompt_tokens": 75000, "total_completion_tokens": 910,
                          "total_cached_tokens": 67500, "total_cost_usd": None,
                          "total_steps": len(s.steps)},
    }


def legacy_trajectory():
    """An older file: token counts in `metadata.metrics`, no row in sessions.db."""
    s = Steps(T0 + 5000)
    s.add("user", "list the files", metadata={"is_user_input": True})
    s.add("agent", "",
          tool_calls=[{"tool_call_id": "call_1", "function_name": "exec",
                       "arguments": "{\"command\": \"ls\"}"}],
          observation={"results": [{"source_call_id": "call_1", "content": "Cargo.toml\nsrc"}]},
          metadata={"generation_model": "swe-1-7",
                    "metrics": {"input_tokens": 300, "output_tokens": 20,
                                "cache_creation_tokens": 100, "cache_read_tokens": 50}})
    s.add("agent", "Two entries: Cargo.toml and src.",
          metadata={"generation_model": "swe-1-7",
                    "metrics": {"input_tokens": 40, "output_tokens": 12,
                                "cache_creation_tokens": 0, "cache_read_tokens": 450}})
    return {"schema_version": "ATIF-v1.4", "session_id": LEGACY,
            "agent": {"name": "devin", "version": "3000.3.22"}, "steps": s.steps}


def write_store(path):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE sessions (
          id TEXT PRIMARY KEY, working_directory TEXT NOT NULL, backend_type TEXT NOT NULL,
          model TEXT NOT NULL, agent_mode TEXT NOT NULL, created_at INTEGER NOT NULL,
          last_activity_at INTEGER NOT NULL, title TEXT, main_chain_id INTEGER,
          hidden INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE message_nodes (
          row_id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
          node_id INTEGER NOT NULL, parent_node_id INTEGER, chat_message TEXT NOT NULL,
          created_at INTEGER NOT NULL, metadata TEXT, UNIQUE(session_id, node_id));
    """)
    db.executemany("INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?)", [
        (MAIN, CWD, "Windsurf", "claude-sonnet-4-6", "bypass", T0, T0 + 60,
         "Fix heron's failing parse test", 2, 0),
        (HIDDEN, "/home/dev/src/other", "Windsurf", "swe-1-7", "bypass", T0 - 100, T0 - 50,
         "Retired session", 1, 1),
    ])
    # The live forest esker does not read (the trajectory is the record once written).
    db.executemany(
        "INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at)"
        " VALUES (?,?,?,?,?)", [
            (MAIN, 1, None, json.dumps({"role": "user", "content": "Why does `cargo test` fail?"}), T0 + 3),
            (MAIN, 2, 1, json.dumps({"role": "assistant", "content": "Let me run the tests."}), T0 + 6),
        ])
    db.commit()
    db.close()


def main():
    shutil.rmtree(CLI, ignore_errors=True)
    os.makedirs(TRANSCRIPTS)
    for name, value in [(MAIN, main_trajectory()), (LEGACY, legacy_trajectory())]:
        with open(os.path.join(TRANSCRIPTS, name + ".json"), "w") as out:
            json.dump(value, out, indent=2)
            out.write("\n")
    write_store(os.path.join(CLI, "sessions.db"))


if __name__ == "__main__":
    main()
