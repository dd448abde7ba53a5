"""Writes the TRAE CLI 2.0 fixture: hand-made Codex rollouts as TRAE CLI writes them (the
shape of tests/fixtures/codex, with TRAE's values: `originator` "codex-tui", a 0.208 `cli_version`,
runtime context injected as `user` response items), plus the prompt history beside them.
Run from this directory: python3 generate.py"""
import json, os

CWD = "/home/dev/src/kestrel"
SID = "019ea3f1-2c4d-7b10-8e55-3a9c0d1e2f34"
T1 = "019ea3f1-2d80-7c22-9a01-4b5c6d7e8f90"
T2 = "019ea3f6-0b12-7d33-8b02-5c6d7e8f9a01"
ARCHIVED = "019e9a22-7f10-7a44-9c03-6d7e8f9a0b12"
T3 = "019e9a22-7f95-7b55-8d04-7e8f9a0b1c23"

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

history = [{"session_id": ARCHIVED, "ts": 1795106400, "text": "What does the kestrel watcher do on a rename?"},
           {"session_id": SID, "ts": 1795252320, "text": "The ingest test for the kestrel crate fails on empty manifests. Please fix it."},
           {"session_id": SID, "ts": 1795252650, "text": "Now run clippy on the workspace."}]

def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))

write(f"trae/cli/sessions/2026/11/20/rollout-2026-11-20T09-12-00-{SID}.jsonl", live)
write(f"trae/cli/archived_sessions/rollout-2026-11-18T16-40-00-{ARCHIVED}.jsonl", archived)
write("trae/cli/history.jsonl", [json.dumps(h) for h in history])
