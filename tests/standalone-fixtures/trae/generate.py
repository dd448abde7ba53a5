"""Writes the TRAE CLI 2.0 fixture: hand-made Codex rollouts as TRAE CLI writes them (the
shape of tests/fixtures/codex, with TRAE's values: `originator` "codex-tui", a 0.208 `cli_version`,
runtime context injected as `user` response items), one with TRAE's own records as well
(`history_mutation`, and `item_completed` prompts, replies and a file change, in the shapes of
docs/HARNESS-RESEARCH.md section 2), plus the prompt history beside them.
Run from this directory: python3 generate.py"""
import json, os

CWD = "/home/dev/src/kestrel"
SID = "019ea3f1-2c4d-7b10-8e55-3a9c0d1e2f34"
T1 = "019ea3f1-2d80-7c22-9a01-4b5c6d7e8f90"
T2 = "019ea3f6-0b12-7d33-8b02-5c6d7e8f9a01"
ARCHIVED = "019e9a22-7f10-7a44-9c03-6d7e8f9a0b12"
T3 = "019e9a22-7f95-7b55-8d04-7e8f9a0b1c23"
MUTATING = "019ea8c4-5e21-7f02-9b13-2c3d4e5f6a70"
T4 = "019ea8c4-5e80-7a11-8c21-3d4e5f6a7b81"
T5 = "019ea8c9-1f40-7b22-9d32-4e5f6a7b8c92"

def line(ts, kind, payload):
    return json.dumps({"timestamp": f"2026-11-{ts}Z", "type": kind, "payload": payload}, ensure_ascii=False)

def meta(ts, sid, started):
    return line(ts, "session_meta", {"id": sid, "timestamp": started, "cwd": CWD,
        "originator": "codex-tui", "cli_version": "0.208.1", "source": "cli",
        "model_provider": "trae", "base_instructions": {"text": "You are TRAE, a coding agent."},
        "git": {"commit_hash": "4c1d9e2a7b3f", "branch": "main"}})

def ctx(ts, turn, model):
    return line(ts, "turn_context", {"turn_id": turn, "cwd": CWD, "approval_policy": "on-request",
        "sandbox_policy": {"type": "workspace-write"}, "model": model, "summary": "auto"})

def user(ts, text):
    return [line(ts, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}),
            line(ts, "event_msg", {"type": "user_message", "message": text, "images": [], "local_images": [], "text_elements": []})]

def reply(ts, text, phase):
    return [line(ts, "event_msg", {"type": "agent_message", "message": text, "phase": phase}),
            line(ts, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}], "phase": phase})]

def usage(ts, total, last):
    def u(v):
        i, c, o, r = v
        return {"input_tokens": i, "cached_input_tokens": c, "output_tokens": o, "reasoning_output_tokens": r, "total_tokens": i + o}
    return line(ts, "event_msg", {"type": "token_count", "info": {"total_token_usage": u(total), "last_token_usage": u(last), "model_context_window": 256000}})

def shell(ts, call, cmd, code, out):
    args = json.dumps({"cmd": cmd, "workdir": CWD})
    return [line(ts, "response_item", {"type": "function_call", "name": "exec_command", "arguments": args, "call_id": call}),
            line(ts, "event_msg", {"type": "exec_command_end", "call_id": call, "command": ["/bin/bash", "-lc", cmd], "cwd": CWD, "stdout": out, "stderr": "", "exit_code": code}),
            line(ts, "response_item", {"type": "function_call_output", "call_id": call, "output": f"Process exited with code {code}\nOutput:\n{out}"})]

live = [meta("20T09:12:00.120", SID, "2026-11-20T09:12:00.000Z"),
        line("20T09:12:00.130", "event_msg", {"type": "task_started", "turn_id": T1, "model_context_window": 256000}),
        line("20T09:12:00.140", "response_item", {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>sandbox_mode is workspace-write</permissions instructions>"}]}),
        # TRAE injects runtime context as a user-role item: not a prompt.
        line("20T09:12:00.141", "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"<environment_context>\n  <cwd>{CWD}</cwd>\n  <shell>bash</shell>\n</environment_context>"}]}),
        ctx("20T09:12:00.150", T1, "doubao-seed-code"),
        *user("20T09:12:00.160", "The ingest test for the kestrel crate fails on empty manifests. Please fix it."),
        line("20T09:12:02.400", "response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Reproduce first**\n\nRun the crate's tests to see the failure."}], "content": None, "encrypted_content": "gAAAAABtraeFixture"}),
        line("20T09:12:02.401", "event_msg", {"type": "agent_reasoning", "text": "**Reproduce first**\n\nRun the crate's tests to see the failure."}),
        *shell("20T09:12:04.900", "call_tr01", "cargo test -p kestrel-ingest", 101,
               "test manifest::empty ... FAILED\nthread panicked at 'index out of bounds: the len is 0'"),
        usage("20T09:12:05.300", (12400, 11000, 260, 120), (12400, 11000, 260, 120)),
        line("20T09:12:07.010", "response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_tr02", "name": "apply_patch",
             "input": "*** Begin Patch\n*** Update File: crates/ingest/src/manifest.rs\n@@\n-    let first = entries[0];\n+    let Some(first) = entries.first() else { return Ok(Manifest::default()) };\n*** End Patch\n"}),
        line("20T09:12:07.050", "event_msg", {"type": "patch_apply_end", "call_id": "call_tr02", "stdout": "Success. Updated the following files:\nM crates/ingest/src/manifest.rs\n", "stderr": "", "success": True}),
        line("20T09:12:07.051", "response_item", {"type": "custom_tool_call_output", "call_id": "call_tr02", "output": json.dumps({"output": "Success. Updated the following files:\nM crates/ingest/src/manifest.rs\n", "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}),
        *shell("20T09:12:12.700", "call_tr03", "cargo test -p kestrel-ingest", 0, "test result: ok. 14 passed; 0 failed"),
        *reply("20T09:12:14.200", "Fixed: `Manifest::parse` indexed the first entry of an empty manifest. It now returns an empty manifest, and the kestrel-ingest tests pass.", "final_answer"),
        usage("20T09:12:14.300", (26100, 23800, 540, 180), (13700, 12800, 280, 60)),
        line("20T09:12:14.310", "event_msg", {"type": "task_complete", "turn_id": T1, "last_agent_message": "Fixed."}),
        line("20T09:17:30.000", "event_msg", {"type": "task_started", "turn_id": T2, "model_context_window": 256000}),
        ctx("20T09:17:30.010", T2, "doubao-seed-code"),
        *user("20T09:17:30.020", "Now run clippy on the workspace."),
        *shell("20T09:17:36.500", "call_tr04", "cargo clippy --workspace -- -D warnings", 0, "Finished `dev` profile"),
        *reply("20T09:17:37.800", "Clippy is clean on the whole workspace.", "final_answer"),
        usage("20T09:17:37.900", (40200, 37000, 610, 180), (14100, 13200, 70, 0)),
        line("20T09:17:37.910", "event_msg", {"type": "task_complete", "turn_id": T2, "last_agent_message": "Clippy is clean."}),
]

archived = [meta("18T16:40:00.100", ARCHIVED, "2026-11-18T16:40:00.000Z"),
            line("18T16:40:00.110", "event_msg", {"type": "task_started", "turn_id": T3, "model_context_window": 256000}),
            ctx("18T16:40:00.120", T3, "doubao-seed-code"),
            *user("18T16:40:00.130", "What does the kestrel watcher do on a rename?"),
            *reply("18T16:40:03.400", "It treats a rename as a delete of the old path and a create of the new one, then re-reads the new file from offset zero.", "final_answer"),
            line("18T16:40:03.410", "event_msg", {"type": "task_complete", "turn_id": T3, "last_agent_message": "It treats a rename as a delete and a create."}),
]

# TRAE's own records (0.201.4 and later). Each `history_mutation` append repeats what the
# response items already hold and adds what only it carries; `item_completed` repeats prompts and
# replies and is the only record of a file change; a `replace` re-sends history (a call the file
# never ran) and a `rollback` cuts it: neither adds anything to read.
RETRY = f"{CWD}/internal/retry"
P1 = "Delete the unused retry helper in internal/retry."
P2 = "Now run the retry tests."
ENV = f"<environment_context>\n  <cwd>{CWD}</cwd>\n  <shell>bash</shell>\n</environment_context>"
NOTICE = "Process limit: at most 64 processes may run in this sandbox."

def message(role, text, **extra):
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}], **extra}

def exec_call(call, script):
    args = json.dumps({"command": ["bash", "-lc", script], "workdir": RETRY})
    return {"type": "function_call", "call_id": call, "name": "exec", "arguments": args}

def exec_output(call, text):
    return {"type": "function_call_output", "call_id": call, "output": [{"type": "input_text", "text": text}]}

def exec_end(ts, call, script, code, out):
    return line(ts, "event_msg", {"type": "exec_command_end", "call_id": call, "command": ["bash", "-lc", script], "cwd": RETRY, "stdout": out, "stderr": "", "exit_code": code})

def shown(turn, *blocks):
    return {"turn_id": turn, "item": {"type": "UserMessage", "id": f"u-{turn[-4:]}", "content": [{"type": "text", "text": b} for b in blocks]}}

def completed(ts, turn, item):
    return line(ts, "event_msg", {"type": "item_completed", "turn_id": turn, "item": item})

def agent_item(text):
    return {"type": "AgentMessage", "id": f"a-{len(text)}", "content": [{"type": "Text", "text": text}]}

def mutation(ts, turn, operation, items, display=None):
    payload = {"turn_id": turn, "operation": operation}
    if display:
        payload["display_completions"] = display
    payload["items"] = items
    return line(ts, "history_mutation", payload)

GREP = "grep -rn retryOld --include=*.go ."
GREPPED = "./retry_old.go:3:func retryOld(op func() error) error {\n"
UNUSED = "No caller of retryOld is left; deleting internal/retry/retry_old.go."
TEST = "go test ./internal/retry/..."
FIXED = "TestBackoff expects three attempts; raising the limit and running it again."
RERUN = "sed -i 's/maxAttempts = 2/maxAttempts = 3/' backoff.go && go test ./internal/retry/..."
PICK = "**Pick the package**\n\nOnly internal/retry changed, so its tests are enough."
FAILED = "--- FAIL: TestBackoff (0.00s)\n    backoff_test.go:41: want 3 attempts, got 2\nFAIL\n"

mutating = [meta("21T14:05:00.120", MUTATING, "2026-11-21T14:05:00.000Z"),
            line("21T14:05:00.130", "event_msg", {"type": "task_started", "turn_id": T4, "model_context_window": 256000}),
            ctx("21T14:05:00.140", T4, "doubao-seed-code"),
            line("21T14:05:00.150", "response_item", message("user", ENV)),
            line("21T14:05:00.151", "response_item", message("user", NOTICE)),
            line("21T14:05:00.160", "event_msg", {"type": "user_message", "turn_id": T4, "message": P1, "images": [], "local_images": [], "text_elements": []}),
            completed("21T14:05:00.161", T4, shown(T4, "Delete the unused retry helper ", "in internal/retry.")["item"]),
            line("21T14:05:00.162", "response_item", message("user", P1)),
            line("21T14:05:03.400", "response_item", exec_call("call_tr11", GREP)),
            exec_end("21T14:05:03.900", "call_tr11", GREP, 0, GREPPED),
            line("21T14:05:05.100", "response_item", message("assistant", UNUSED)),
            completed("21T14:05:06.200", T4, {"type": "FileChange", "id": "call_tr12", "status": "completed",
                                              "changes": {f"{RETRY}/retry_old.go": {"type": "delete", "content": ""}}}),
            line("21T14:05:06.800", "response_item", message("assistant", "Done.")),
            mutation("21T14:05:06.810", T4, "append",
                     [message("user", ENV), exec_call("call_tr11", GREP), exec_output("call_tr11", GREPPED),
                      message("assistant", UNUSED), message("assistant", "Done.")],
                     display=[shown(T4, "Delete the unused retry helper ", "in internal/retry.")]),
            completed("21T14:05:06.830", T4, agent_item("Done.")),
            line("21T14:05:06.840", "event_msg", {"type": "agent_message", "message": "Done.", "phase": "final_answer"}),
            usage("21T14:05:06.900", (15200, 13100, 310, 90), (15200, 13100, 310, 90)),
            line("21T14:05:06.910", "event_msg", {"type": "task_complete", "turn_id": T4, "last_agent_message": "Done.", "error": None}),
            line("21T14:09:10.000", "event_msg", {"type": "task_started", "turn_id": T5, "model_context_window": 256000}),
            ctx("21T14:09:10.010", T5, "doubao-seed-code"),
            completed("21T14:09:10.020", T5, shown(T5, P2)["item"]),
            exec_end("21T14:09:14.500", "call_tr13", TEST, 1, FAILED),
            exec_end("21T14:09:19.200", "call_tr14", RERUN, 0, "ok  \tkestrel/internal/retry\t0.41s\n"),
            mutation("21T14:09:20.400", T5, "append",
                     [message("assistant", PICK, channel="analysis"),
                      exec_call("call_tr13", TEST), exec_output("call_tr13", FAILED),
                      message("assistant", FIXED),
                      exec_call("call_tr14", RERUN), exec_output("call_tr14", "ok  \tkestrel/internal/retry\t0.41s\n"),
                      message("assistant", "Done.", channel="final"),
                      {"type": "trae_extra_info", "id": "x-1"}],
                     display=[shown(T5, P2)]),
            line("21T14:09:20.410", "event_msg", {"type": "agent_reasoning", "text": PICK}),
            completed("21T14:09:20.420", T5, agent_item(FIXED)),
            line("21T14:09:20.430", "event_msg", {"type": "agent_message", "message": FIXED, "phase": "commentary"}),
            line("21T14:09:20.440", "event_msg", {"type": "agent_message", "message": "Done.", "phase": "final_answer"}),
            mutation("21T14:09:20.500", T5, "replace",
                     [message("user", ENV), exec_call("call_tr99", "go vet ./..."), message("assistant", "Done.")]),
            usage("21T14:09:20.600", (33000, 29900, 520, 130), (17800, 16800, 210, 40)),
            line("21T14:09:20.610", "event_msg", {"type": "task_complete", "turn_id": T5, "last_agent_message": "Done.", "error": None}),
            mutation("21T14:11:02.000", T5, "rollback", []),
]

history = [{"session_id": ARCHIVED, "ts": 1795106400, "text": "What does the kestrel watcher do on a rename?"},
           {"session_id": SID, "ts": 1795252320, "text": "The ingest test for the kestrel crate fails on empty manifests. Please fix it."},
           {"session_id": SID, "ts": 1795252650, "text": "Now run clippy on the workspace."},
           {"session_id": MUTATING, "ts": 1795356300, "text": P1},
           {"session_id": MUTATING, "ts": 1795356550, "text": P2}]

def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))

write(f"trae/cli/sessions/2026/11/20/rollout-2026-11-20T09-12-00-{SID}.jsonl", live)
write(f"trae/cli/sessions/2026/11/21/rollout-2026-11-21T14-05-00-{MUTATING}.jsonl", mutating)
write(f"trae/cli/archived_sessions/rollout-2026-11-18T16-40-00-{ARCHIVED}.jsonl", archived)
write("trae/cli/history.jsonl", [json.dumps(h) for h in history])
