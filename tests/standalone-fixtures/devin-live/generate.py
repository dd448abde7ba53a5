#!/usr/bin/env python3
"""Writes store.json, the rows of the Devin CLI live-store fixture (see README.md).
tests/it/harnesses/devin.rs builds `sessions.db` (and the one trajectory) from it at test time.

Run it here: python3 generate.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = 1_795_000_000  # epoch seconds, as sessions.db stores them


def node(session, node_id, parent, message, metadata=None):
    return {"session_id": session, "node_id": node_id, "parent_node_id": parent,
            "chat_message": message, "created_at": T0 + node_id, "metadata": metadata}


def user(message_id, text, created=None, typed=True):
    metadata = {"is_user_input": typed,
                "extensions": {"chisel/client-message-id": "client-" + message_id}}
    if created:
        metadata["created_at"] = created
    return {"message_id": message_id, "role": "user", "content": text, "metadata": metadata}


def assistant(message_id, text, **fields):
    return {"message_id": message_id, "role": "assistant", "content": text, **fields}


def system(message_id, text):
    return {"message_id": message_id, "role": "system", "content": text}


AGENT_ID = "5b1e07c2"
PREFIX = {"summarized_from": None, "num_tokens_preceding": None, "is_system_prefix": True}


def live():
    """A running session: its chain, and a retried reply off it."""
    s = "amber-kestrel"
    failed = {"extensions": {
        "chisel/tool_result_meta": {"success": False, "kind": "exec"},
        "chisel/terminal_output": {"text": "1 failed", "cwd": "/w/app",
                                   "exit": {"terminal_id": "t1", "exit_code": 1}}}}
    read_ok = {"extensions": {"chisel/tool_result_meta": {"success": True, "kind": "read"}}}
    return [
        node(s, 0, None, system("s-0", "You are Devin, a software engineering agent."), PREFIX),
        node(s, 1, 0, user("u-1", "Run the tests", "2026-11-18T11:06:41Z")),
        node(s, 2, 1, assistant("a-2", "Running.",
             thinking={"thinking": "Use cargo.", "signature": "sealed.v1", "signature_type": "sealed"},
             tool_calls=[{"id": "exec_0#1", "index": 0, "kind": "function", "name": "exec",
                          "arguments": {"command": "cargo test"}}],
             metadata={"generation_model": "swe-2-high", "finish_reason": "tool_calls",
                       "created_at": "2026-11-18T11:06:42Z",
                       "metrics": {"input_tokens": 200, "output_tokens": 30,
                                   "cache_read_tokens": 1000, "cache_creation_tokens": 0}})),
        node(s, 3, 1, assistant("a-3", "A retried reply the user discarded.")),
        node(s, 4, 2, {"message_id": "t-4", "role": "tool", "tool_call_id": "exec_0#1",
                       "content": "test parse ... FAILED\n1 failed", "metadata": failed}),
        node(s, 5, 4, assistant("a-5", "",
             tool_calls=[{"id": "call-2", "function": {
                 "name": "read_file", "arguments": "{\"path\": \"src/parse.rs\"}"}}])),
        node(s, 6, 5, {"message_id": "t-6", "role": "tool", "tool_call_id": "call-2",
                       "content": "pub fn parse() {}", "metadata": read_ok}),
        node(s, 7, 6, assistant("a-7", "Fixed: parse returns early on empty input.",
                                metadata={"finish_reason": "stop"})),
    ]


def compacted():
    """A compacted session: the old chain, the summarizer's thread, the new chain whose
    continuation names the old head, with the prompt the CLI carried over (a copy)."""
    s = "cobalt-finch"
    return [
        node(s, 10, None, system("s-10", "You are Devin."), PREFIX),
        node(s, 11, 10, user("u-11", "Audit the dependencies")),
        node(s, 12, 11, assistant("a-12", "Two are stale: serde and clap.")),
        node(s, 20, None, user("s-20", "Summarize the conversation so far.", typed=False)),
        node(s, 21, 20, assistant("a-21", "<summary>dependency audit</summary>"),
             {"summarized_from": 12}),
        node(s, 30, None, system("s-30", "You are Devin."), PREFIX),
        node(s, 31, 30, system("c-31", "You are continuing work from a previous conversation "
                                       "thread. <summary>dependency audit</summary>"),
             {"summarized_from": 12}),
        node(s, 32, 31, user("u-11", "Audit the dependencies"),
             {"extensions": {"compact/prior_node_ids": [11]}}),
        node(s, 33, 32, user("u-33", "Now update them")),
    ]


def delegating():
    """A session that ran a foreground sub-agent: its `run_subagent` call, the sub-agent's own
    chain off the conversation (rooted at its own system prompt: the task, an `exec` call, its
    result, the report), and the call's result on the conversation naming that chain's tip."""
    s = "gilded-osprey"
    task = "Find where the config is parsed"
    spawn = {"id": "spawn-1", "index": 0, "kind": "function", "name": "run_subagent",
             "arguments": {"title": "Config survey", "task": task,
                           "profile": "subagent_explore"}}
    grep = {"id": "exec-s1", "index": 0, "kind": "function", "name": "exec",
            "arguments": {"command": "grep -rn parse_config src"}}
    grep_ok = {"extensions": {
        "chisel/tool_result_meta": {"success": True, "kind": "exec"},
        "chisel/terminal_output": {"text": "src/config.rs:12", "cwd": "/w/app",
                                   "exit": {"terminal_id": "t2", "exit_code": 0}}}}
    report = "parse_config in src/config.rs parses it."
    subagent = {"extensions": {
        "subagent/agent_id": AGENT_ID, "subagent/chain_node_id": 47,
        "subagent/profile_name": "Explore", "subagent/model": "Subagent Default",
        "chisel/tool_result_meta": {"success": True, "kind": "run_subagent"}}}
    return [
        node(s, 40, None, system("s-40", "You are Devin."), PREFIX),
        node(s, 41, 40, user("u-41", "Where is the config parsed?")),
        node(s, 42, 41, assistant("a-42", "", tool_calls=[spawn])),
        # The sub-agent's chain: no node of the conversation is on it.
        node(s, 43, None, system("s-43", "You are a sub-agent."), PREFIX),
        node(s, 44, 43, user("u-44", task)),
        node(s, 45, 44, assistant("a-45", "", tool_calls=[grep],
                                  metadata={"generation_model": "swe-1-5"})),
        node(s, 46, 45, {"message_id": "t-46", "role": "tool", "tool_call_id": "exec-s1",
                         "content": "src/config.rs:12: fn parse_config", "metadata": grep_ok}),
        node(s, 47, 46, assistant("a-47", report, metadata={"generation_model": "swe-1-5"})),
        # Back on the conversation: the call's result names the sub-agent's chain.
        node(s, 48, 42, {"message_id": "t-48", "role": "tool", "tool_call_id": "spawn-1",
                         "content": report, "metadata": subagent}),
        node(s, 49, 48, assistant("a-49", "The config is parsed in src/config.rs.")),
    ]


def main():
    sessions = [
        # id, title, model, main_chain_id, hidden
        ["amber-kestrel", "Fix the parser", "", 7, 0],
        ["cobalt-finch", "Dependency audit", "swe-1-6", None, 0],
        ["dusty-wren", "Retired session", "swe-1-6", 1, 1],
        ["ember-lark", "Finished session", "swe-1-6", 1, 0],
        ["gilded-osprey", "Find the config parser", "swe-1-6", 49, 0],
    ]
    nodes = live() + compacted() + delegating()
    # The hidden session and the one whose trajectory is written have nodes too.
    nodes += [dict(n, session_id="dusty-wren") for n in live()[:2]]
    nodes += [node("ember-lark", 0, None, system("s-0", "You are Devin."), PREFIX),
              node("ember-lark", 1, 0, user("u-1", "The prompt as the nodes hold it"))]
    trajectories = {
        "ember-lark": {
            "schema_version": "ATIF-v1.7", "session_id": "ember-lark",
            "agent": {"name": "devin", "version": "3000.11.3", "model_name": "swe-1-6"},
            "steps": [
                {"step_id": 1, "timestamp": "2026-11-18T11:00:01Z", "source": "user",
                 "message": "The prompt as the trajectory holds it"},
                {"step_id": 2, "timestamp": "2026-11-18T11:00:05Z", "source": "agent",
                 "message": "Done."},
            ],
        },
    }
    with open(os.path.join(HERE, "store.json"), "w") as out:
        json.dump({"sessions": sessions, "nodes": nodes, "trajectories": trajectories},
                  out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
