"""The real Claude Code and Codex CLIs resume a session `esker handoff --write` created for them
(issue #52). Run by tests/it/cli/handoff.rs when both CLIs are installed (.ci/run installs
them from npm).

  real_resume.py ESKER CLAUDE CODEX WORKDIR

1. Writes a Claude Code session (its real transcript shape) whose working directory is
   WORKDIR/project, in a home of its own, and indexes it with `esker index`.
2. `esker handoff ID --to claude --write` and `--to codex --write`: new sessions in each CLI's
   own format and place, with the pack as the first user message.
3. Starts a local stand-in for the model APIs (Anthropic Messages, OpenAI Responses, both
   streamed) and runs each CLI's own resume in print mode: `claude -p --resume UUID PROMPT` in
   the session's directory and `codex exec resume UUID PROMPT` with the OpenAI base URL at the
   stand-in.
4. Checks each CLI exited 0 and printed the stand-in's reply, and that the request it sent the
   model held the hand-off pack (the history it resumed) followed by the new prompt.
"""

import http.server
import json
import os
import re
import subprocess
import sys
import threading

MARKER = "the quokka ledger reconciliation"
REPLY = "STAND-IN-MODEL-REPLY"
TIMEOUT = 180


class StandIn(http.server.BaseHTTPRequestHandler):
    """Answers the Messages and Responses APIs with one streamed text reply; keeps each
    request body."""

    requests = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(404)
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        StandIn.requests.append((self.path, body))
        path = self.path.split("?", 1)[0]
        if path.endswith("/messages"):
            self.stream(anthropic_events())
        elif path.endswith("/responses"):
            self.stream(openai_events())
        else:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"input_tokens": 10}')

    def stream(self, events):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())


def anthropic_events():
    usage = {"input_tokens": 10, "output_tokens": 1}
    message = {"id": "msg_standin", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5", "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": usage}
    return [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": REPLY}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                           "usage": {"output_tokens": 2}}),
        ("message_stop", {"type": "message_stop"}),
    ]


def openai_events():
    item = {"type": "message", "role": "assistant", "id": "msg_standin",
            "content": [{"type": "output_text", "text": REPLY}]}
    usage = {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 2,
             "output_tokens_details": None, "total_tokens": 12}
    events = [
        {"type": "response.created", "response": {"id": "resp_standin"}},
        {"type": "response.output_item.done", "item": item},
        {"type": "response.completed", "response": {"id": "resp_standin", "usage": usage}},
    ]
    return [(event["type"], event) for event in events]


def claude_transcript(session_id, cwd):
    """Two turns in Claude Code's transcript shape (user and assistant records chained by
    parentUuid)."""
    records = []
    parent = None
    turns = [
        (f"Please finish {MARKER}: the totals of March differ by 12.40.",
         "The March difference comes from a refund booked twice; I removed the duplicate."),
        ("Now add a test for the duplicate refund.",
         "Added test_duplicate_refund_is_booked_once; it fails before the fix and passes after."),
    ]
    for index, (prompt, reply) in enumerate(turns):
        for role, text in (("user", prompt), ("assistant", reply)):
            uuid = f"00000000-0000-4000-8000-{len(records):012d}"
            record = {
                "parentUuid": parent, "isSidechain": False, "userType": "external",
                "cwd": cwd, "sessionId": session_id, "version": "2.1.0", "gitBranch": "main",
                "type": role, "uuid": uuid,
                "timestamp": f"2026-11-20T10:0{index}:{'00' if role == 'user' else '30'}.000Z",
            }
            if role == "user":
                record["message"] = {"role": "user", "content": text}
            else:
                record["message"] = {
                    "id": f"msg_{len(records)}", "type": "message", "role": "assistant",
                    "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn", "stop_sequence": None,
                    "usage": {"input_tokens": 100, "output_tokens": 20},
                }
                record["requestId"] = f"req_{len(records)}"
            records.append(record)
            parent = uuid
    return "".join(json.dumps(record) + "\n" for record in records)


def run(command, env, cwd=None):
    result = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True,
                            timeout=TIMEOUT)
    if result.returncode != 0:
        raise AssertionError(
            f"{command[:3]} exited {result.returncode}\nstdout:\n{result.stdout[-3000:]}\n"
            f"stderr:\n{result.stderr[-3000:]}")
    return result.stdout


def handoff(esker, env, data_dir, session_id, target):
    out = run([esker, "handoff", "--data-dir", data_dir, "--to", target, "--write",
               f"session:{session_id}" if not session_id.startswith("session:") else session_id],
              env)
    assert "# Hand-off:" in out, out
    written = re.search(r"^wrote (.+)$", out, re.M)
    resume = re.search(r"^resume: cd (.+?) && (\S+) (?:--resume|resume) (\S+)$", out, re.M)
    assert written and resume, f"no wrote/resume lines in:\n{out}"
    return out, written.group(1), resume.group(1), resume.group(3)


def sent_after(requests, marker_of_path, prompt):
    """The request bodies sent to a model path holding both the pack and the new prompt, the
    pack first."""
    for path, body in requests:
        if marker_of_path in path and "# Hand-off:" in body and prompt in body:
            assert MARKER in body, "the resumed history lost the goal's words"
            assert body.index("# Hand-off:") < body.rindex(prompt), "the prompt came first"
            return body
    seen = [(path, len(body)) for path, body in requests]
    raise AssertionError(f"no request to {marker_of_path} held the pack and the prompt: {seen}")


def main():
    esker, claude, codex, work = sys.argv[1:5]
    home = os.path.join(work, "home")
    project = os.path.join(work, "project")
    data_dir = os.path.join(work, "data")
    os.makedirs(project, exist_ok=True)
    session_id = "5e5510a0-0000-4000-8000-00000000c0de"
    slug = re.sub(r"[^A-Za-z0-9]", "-", project)
    transcript_dir = os.path.join(home, ".claude", "projects", slug)
    os.makedirs(transcript_dir, exist_ok=True)
    with open(os.path.join(transcript_dir, f"{session_id}.jsonl"), "w") as file:
        file.write(claude_transcript(session_id, project))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    env = dict(os.environ)
    env.update({
        "HOME": home, "CLAUDE_CONFIG_DIR": os.path.join(home, ".claude"),
        "CODEX_HOME": os.path.join(home, ".codex"),
        "ANTHROPIC_BASE_URL": base, "ANTHROPIC_API_KEY": "sk-standin",
        "OPENAI_API_KEY": "sk-standin", "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
        "NO_COLOR": "1",
    })
    run([esker, "index", "--quiet", "--data-dir", data_dir,
         os.path.join(home, ".claude", "projects")], env)
    found = json.loads(run([esker, "search", "--data-dir", data_dir, "--json", "quokka"], env))
    sessions = {hit["session"]["id"] for hit in found["results"]}
    assert len(sessions) == 1, f"the search found {sessions}"
    indexed = sessions.pop()

    # Claude Code: its own resume, in the session's directory, in print mode.
    _, path, cwd, native_id = handoff(esker, env, data_dir, indexed, "claude")
    assert os.path.realpath(cwd) == os.path.realpath(project), (cwd, project)
    assert os.path.isfile(path) and path.startswith(os.path.join(home, ".claude")), path
    prompt = "Continue from the hand-off: what is left?"
    out = run([claude, "-p", "--resume", native_id, prompt], env, cwd=cwd)
    assert REPLY in out, f"claude printed:\n{out}"
    sent_after(StandIn.requests, "/messages", prompt)
    print(f"claude resumed {native_id} ({path}) and sent the pack and the prompt")

    # Codex: `codex exec resume` against a provider pointed at the stand-in.
    StandIn.requests.clear()
    _, path, cwd, native_id = handoff(esker, env, data_dir, indexed, "codex")
    assert os.path.isfile(path) and path.startswith(os.path.join(home, ".codex")), path
    # The session records the `openai` provider, which a resume may not change: its base URL
    # points at the stand-in instead (Codex tries a WebSocket first, gets 404, then streams
    # over HTTP).
    prompt = "Continue from the codex hand-off: what is left?"
    out = run([codex, "exec", "--skip-git-repo-check", "-c", f'openai_base_url="{base}/v1"',
               "resume", native_id, prompt], env, cwd=cwd)
    assert REPLY in out, f"codex printed:\n{out}"
    sent_after(StandIn.requests, "/responses", prompt)
    print(f"codex resumed {native_id} ({path}) and sent the pack and the prompt")
    server.shutdown()


if __name__ == "__main__":
    main()
