#!/usr/bin/env python3
"""Writes the CodeBuddy Code / WorkBuddy fixture (see README.md for where each shape comes from).

Run it here: python3 generate.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SESSION = "1b7c2f4e-5a6d-4e8f-9a0b-1c2d3e4f5a6b"
AGENT = "agent-a1b2c3d4"
WB_SESSION = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f"
CWD = "/home/dev/src/heron"
WB_CWD = "c:\\Users\\dev\\notes"
T0 = 1_795_000_000_000  # 2026-11-18T...Z, epoch milliseconds as CodeBuddy writes them


def write(relative, records):
    path = os.path.join(HERE, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")


class Session:
    def __init__(self, session_id, cwd, start):
        self.session_id = session_id
        self.cwd = cwd
        self.clock = start
        self.records = []
        self.last = None

    def add(self, record_id, fields, **extra):
        self.clock += 1500
        record = {"id": record_id, "parentId": self.last, "timestamp": self.clock}
        record.update(fields)
        record.update(extra)
        record["sessionId"] = self.session_id
        record["cwd"] = self.cwd
        self.records.append(record)
        self.last = record_id
        return record


def user(text, **provider):
    return {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": text}],
        "providerData": {"agent": "cli", **provider},
    }


def assistant(text, message_id, usage=None, model="hy3"):
    record = {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
        "providerData": {"agent": "cli", "messageId": message_id, "model": model,
                         "requestModelId": model},
    }
    if usage:
        record["providerData"]["usage"] = usage
    return record


def call(call_id, name, arguments, message_id, usage=None, model="hy3"):
    record = {
        "type": "function_call",
        "callId": call_id,
        "name": name,
        "arguments": json.dumps(arguments, ensure_ascii=False),
        "status": "completed",
        "providerData": {"agent": "cli", "messageId": message_id, "model": model},
    }
    if usage:
        record["providerData"]["usage"] = usage
    return record


def result(call_id, name, text, **provider):
    record = {
        "type": "function_call_result",
        "callId": call_id,
        "name": name,
        "status": "completed",
        "output": {"type": "text", "text": text},
    }
    if provider:
        record["providerData"] = provider
    return record


def usage(prompt, output, cached):
    return {"inputTokens": prompt, "outputTokens": output, "cacheReadInputTokens": cached}


def codebuddy_main():
    s = Session(SESSION, CWD, T0)
    s.add("f0", {"type": "file-history-snapshot", "messageId": "u1",
                 "snapshot": {"messageId": "u1", "trackedFileBackups": {}}})
    prompt = "why does the heron importer drop rows?"
    s.add("u1", user(prompt))
    # CodeBuddy rewrites a user message once: the same id, the words wrapped in <user_query>.
    s.records.append(dict(s.records[-1], content=[
        {"type": "input_text", "text": f"<user_query>{prompt}</user_query>"}]))
    s.add("r1", {"type": "reasoning", "content": [],
                 "rawContent": [{"type": "reasoning_text",
                                 "text": "Rows vanish on import: read the importer first."}],
                 "providerData": {"agent": "cli", "messageId": "msg_1", "model": "hy3"}})
    first_call = usage(12000, 180, 9000)
    s.add("a1", assistant("Reading the importer.", "msg_1", first_call))
    # The same model call's tool call repeats its usage; it counts once.
    s.add("c1", call("call_r1", "Read", {"file_path": f"{CWD}/heron/importer.py"}, "msg_1",
                     first_call))
    s.add("c1r", result("call_r1", "Read",
                        "   1\tdef load(rows):\n   2\t    return [r for r in rows if parse_date(r)]"))
    s.add("c2", call("call_b1", "Bash", {"command": "pytest tests/test_importer.py -q",
                                         "description": "Run the importer tests"},
                     "msg_2", usage(12600, 60, 12000)))
    s.add("c2r", result("call_b1", "Bash",
                        "F.\nFAILED tests/test_importer.py::test_timezone_rows\n"
                        "1 failed, 1 passed in 0.41s\nExit Code: 1"))
    s.add("a2", assistant("`parse_date` returns None for dates with a timezone offset, so "
                          "those rows are filtered out.", "msg_3", usage(13100, 95, 12500)))
    s.add("m1", {"type": "turn-metrics", "durationMs": 8400, "tokenDelta": 38235})
    s.add("t1", {"type": "ai-title", "aiTitle": "Heron importer drops rows"})
    s.add("h1", user("SessionStart hook: branch main, 2 files changed", isMeta=True))
    s.add("u2", user("fix it, keep the offset"))
    s.add("c3", call("call_e1", "Edit", {"file_path": f"{CWD}/heron/dates.py",
                                          "old_string": "strptime(text, FORMAT)",
                                          "new_string": "fromisoformat(text)"},
                     "msg_4", model="hy3"),
          )
    s.records[-1]["providerData"]["rawUsage"] = {
        "prompt_tokens": 13500, "completion_tokens": 140,
        "prompt_tokens_details": {"cached_tokens": 13000},
        "completion_tokens_details": {"reasoning_tokens": 40}}
    s.add("c3r", result("call_e1", "Edit", "",
                        toolResult={"error": "old_string not found in heron/dates.py"}))
    s.add("c4", call("call_a1", "Agent", {"description": "Find date parsers",
                                           "subagent_type": "Explore",
                                           "prompt": "List every function that parses dates"},
                     "msg_5", usage(13900, 70, 13400)))
    s.add("c4r", result("call_a1", "Agent",
                        "parse_date in heron/dates.py and parse_stamp in heron/log.py"))
    s.add("a3", assistant("Both parsers now use `datetime.fromisoformat`, which keeps the "
                          "offset; the timezone rows import.", "msg_6", usage(14800, 120, 14000)))
    s.add("m2", {"type": "turn-metrics", "durationMs": 15200, "tokenDelta": 28630})
    s.add("t2", {"type": "custom-title", "customTitle": "Importer timezone fix"})
    return s.records


def codebuddy_subagent():
    s = Session(SESSION, CWD, T0 + 40_000)
    s.add("su1", user("List every function that parses dates"))
    s.add("sc1", call("call_g1", "Grep", {"pattern": "def parse_", "path": CWD}, "smsg_1",
                      usage(3000, 40, 0)))
    s.add("sc1r", result("call_g1", "Grep",
                         "heron/dates.py:12:def parse_date(text):\nheron/log.py:30:def parse_stamp(s):"))
    s.add("sa1", assistant("parse_date in heron/dates.py and parse_stamp in heron/log.py",
                           "smsg_2", usage(3200, 30, 2900)))
    return s.records


def workbuddy_session():
    s = Session(WB_SESSION, WB_CWD, T0 + 3_600_000)
    context = ("<system-reminder data-role=\"user-context\">\n<user_info>\nOS Version: win32\n"
               "</user_info>\n</system-reminder>\n")
    s.add("w1", user(context + "<user_query>summarise the release notes page</user_query>"))
    fetch_usage = usage(5200, 35, 0)
    s.add("w2", call("call_w1", "WebFetch", {"url": "https://example.com/releases"}, "wmsg_1",
                     fetch_usage, model="hy3"))
    s.add("w2r", result("call_w1", "WebFetch", "Release 4.2: faster sync, new export."))
    s.add("w3", assistant("Release 4.2 brings faster sync and a new export.", "wmsg_2",
                          usage(5600, 25, 5100)))
    s.add("w4", {"type": "ai-title", "aiTitle": "Release notes summary"})
    return s.records


def main():
    project = "codebuddy/projects/home-dev-src-heron"
    write(f"{project}/{SESSION}.jsonl", codebuddy_main())
    write(f"{project}/{SESSION}/subagents/{AGENT}.jsonl", codebuddy_subagent())
    write(f"workbuddy-ai/projects/c-Users-dev-notes/{WB_SESSION}.jsonl", workbuddy_session())


if __name__ == "__main__":
    main()
