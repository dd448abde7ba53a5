#!/usr/bin/env python3
"""Writes the Auggie fixture (see README.md for where each shape comes from).

Run it here: python3 generate.py
"""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
SESSIONS = os.path.join(HERE, "home", ".augment", "sessions")
MAIN = "4c1f2a9e-7b3d-4e8a-9c5f-2d6b8e1a3f70"
CHILD = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
CWD = "/home/dev/src/heron"


def ide_node(node_id, unchanged):
    return {"id": node_id, "type": 4, "ide_state_node": {
        "workspace_folders": [{"repository_root": CWD, "folder_root": CWD}],
        "workspace_folders_unchanged": unchanged,
        "current_terminal": {"terminal_id": 0, "current_working_directory": CWD}}}


def node(node_id, kind, content="", tool_use=None, thinking=None, token_usage=None, ms=0):
    return {"id": node_id, "type": kind, "content": content, "tool_use": tool_use,
            "thinking": thinking, "billing_metadata": None,
            "metadata": {"openai_id": None, "google_ts": None, "provider": "anthropic",
                         "phase": None} if kind != 10 else None,
            "token_usage": token_usage, "timestamp_ms": ms}


def tool_use(call_id, name, arguments, started, partial=False):
    return {"tool_use_id": call_id, "tool_name": name,
            "input_json": json.dumps(arguments) if not partial else json.dumps(arguments)[:12],
            "is_partial": partial, "started_at_ms": started, "completed_at_ms": started + 900}


def usage(fresh, output, cache_read, cache_write):
    return {"input_tokens": fresh, "output_tokens": output, "cache_read_input_tokens": cache_read,
            "cache_creation_input_tokens": cache_write, "system_prompt_tokens": 4913,
            "chat_history_tokens": 0, "current_message_tokens": 86,
            "max_context_tokens": 204800, "tool_definitions_tokens": 7387,
            "tool_result_tokens": 0, "assistant_response_tokens": output}


def result(node_id, call_id, content, error=False, ms=0):
    return {"id": node_id, "type": 1, "tool_result_node": {
        "tool_use_id": call_id, "content": content, "is_error": error,
        "duration_ms": 840, "start_time_ms": ms, "request_id": None}}


def entry(seq, request_id, message, request_nodes, response_text, response_nodes, finished,
          completed=True, summary=False, model="claude-sonnet-4-5"):
    return {"exchange": {"request_message": message, "response_text": response_text,
                         "request_id": request_id, "model_id": model,
                         "request_nodes": request_nodes, "response_nodes": response_nodes},
            "completed": completed, "sequenceId": seq, "finishedAt": finished,
            "changedFiles": [], "changedFilesSkipped": [], "changedFilesSkippedCount": 0,
            "isHistorySummary": summary, "historySummaryVersion": 1 if summary else 0,
            "source": "local"}


T = 1_794_305_700_000


def main_session():
    ask = "cargo test fails in heron since the last merge; why?"
    history = [
        entry(1, "b1e0c2d4-0001-4a5b-8c6d-7e8f9a0b1c2d", ask,
              [{"id": 1, "type": 0, "text_node": {"content": ask}}, ide_node(2, False)],
              "Let me run the tests first.\n",
              [node(0, 8, thinking={"summary": "Reproduce the failure before reading code.",
                                    "encrypted_content": "EsIDCkYI", "content": None,
                                    "openai_responses_api_item_id": None}, ms=T + 1000),
               node(1, 0, "Let me run the tests first.\n", ms=T + 1200),
               node(2, 7, tool_use=tool_use("toolu_01Run", "launch-process",
                                            {"command": "cargo test -p heron"}, T + 1300,
                                            partial=True), ms=T + 1300),
               node(2, 5, tool_use=tool_use("toolu_01Run", "launch-process",
                                            {"command": "cargo test -p heron", "wait": True,
                                             "max_wait_seconds": 300, "cwd": CWD}, T + 1300),
                    ms=T + 1400),
               node(3, 10, token_usage=usage(10, 221, 0, 11315), ms=T + 1500),
               node(4, 0, ms=T + 1500)],
              "2026-11-10T10:15:02.000Z"),
        entry(2, "b1e0c2d4-0002-4a5b-8c6d-7e8f9a0b1c2d", "",
              [ide_node(1, True),
               result(1, "toolu_01Run", "Here are the results from executing the command.\n"
                      "<return-code>\n101\n</return-code>\n<stdout>\nerror[E0425]: cannot find "
                      "value `config_path` in this scope\n</stdout>", error=True, ms=T + 1300)],
              "The build breaks on `config_path`. Reading the file and fixing the call.\n",
              [node(0, 0, "The build breaks on `config_path`. Reading the file and fixing the "
                          "call.\n", ms=T + 3000),
               node(1, 5, tool_use=tool_use("toolu_02View", "view",
                                            {"path": "src/lib.rs", "type": "file"}, T + 3100),
                    ms=T + 3100),
               node(2, 5, tool_use=tool_use("toolu_03Edit", "str-replace-editor",
                                            {"command": "str_replace", "path": "src/lib.rs",
                                             "old_str_1": "let path = config_path;",
                                             "new_str_1": "let path = config::path();"},
                                            T + 3200), ms=T + 3200),
               node(3, 10, token_usage=usage(8, 180, 11315, 2040), ms=T + 3300)],
              "2026-11-10T10:15:05.000Z"),
        entry(3, "b1e0c2d4-0003-4a5b-8c6d-7e8f9a0b1c2d", "",
              [result(1, "toolu_02View", "Here's the result of running `cat -n` on src/lib.rs:\n"
                      "    42\tlet path = config_path;", ms=T + 3100),
               result(2, "toolu_03Edit", "Successfully edited the file src/lib.rs.",
                      ms=T + 3200)],
              "Fixed: `config_path` became `config::path()` in the merge.",
              [node(0, 0, "Fixed: `config_path` became `config::path()` in the merge.",
                    ms=T + 5000),
               node(1, 10, token_usage=usage(6, 95, 13355, 640), ms=T + 5100)],
              "2026-11-10T10:15:07.000Z"),
        entry(4, "b1e0c2d4-0004-4a5b-8c6d-7e8f9a0b1c2d", "thanks, now add a regression test",
              [{"id": 1, "type": 0, "text_node": {"content": "thanks, now add a regression test"}},
               ide_node(2, True)],
              "",
              [node(0, 5, tool_use=tool_use("toolu_04Agent", "sub-agent-test-writer",
                                            {"name": "test-writer",
                                             "instruction": "add a test for config::path()"},
                                            T + 8000), ms=T + 8000),
               node(1, 10, token_usage=usage(12, 60, 13995, 300), ms=T + 8100)],
              "2026-11-10T10:15:10.000Z"),
        entry(5, "b1e0c2d4-0005-4a5b-8c6d-7e8f9a0b1c2d", "",
              [result(1, "toolu_04Agent", "Sub-agent finished: wrote tests/config_path.rs.",
                      ms=T + 8000)],
              "Added tests/config_path.rs through the test-writer sub-agent.",
              [node(0, 0, "Added tests/config_path.rs through the test-writer sub-agent.",
                    ms=T + 20000),
               node(1, 10, token_usage=usage(5, 40, 14400, 120), ms=T + 20100)],
              "2026-11-10T10:15:21.000Z"),
        entry(6, "b1e0c2d4-0006-4a5b-8c6d-7e8f9a0b1c2d",
              "<summary>The user fixed heron's config_path build break and added a test."
              "</summary>",
              [{"id": 0, "type": 10, "history_summary_node": {
                  "summary_text": "Fixed heron's config_path build break; added "
                                  "tests/config_path.rs."}}],
              "", [], "2026-11-10T10:30:00.000Z", summary=True),
        entry(7, "b1e0c2d4-0007-4a5b-8c6d-7e8f9a0b1c2d", "which files did we change?",
              [{"id": 1, "type": 0, "text_node": {"content": "which files did we change?"}},
               ide_node(2, True)],
              "src/lib.rs and tests/config_path.rs.",
              [node(0, 0, "src/lib.rs and tests/config_path.rs.", ms=T + 1_000_000),
               node(1, 10, token_usage=usage(3, 12, 2100, 900), ms=T + 1_000_100)],
              "2026-11-10T10:31:40.000Z"),
    ]
    return {"sessionId": MAIN, "created": "2026-11-10T10:15:00.000Z",
            "modified": "2026-11-10T10:31:40.000Z", "title": "cargo test fails in heron",
            "customTitle": "heron config_path fix", "workspaceId": "ws-heron",
            "agentState": {"userGuidelines": "", "workspaceGuidelines": "",
                           "modelId": "claude-sonnet-4-5", "userEmail": "",
                           "agentPersonaId": None},
            "rootTaskUuid": "0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e", "terminalId": "t1",
            "chatHistory": history}


def child_session():
    instruction = "add a test for config::path()"
    history = [
        entry(1, "c2f1d3e5-0001-4b6c-9d7e-8f9a0b1c2d3e", instruction,
              [{"id": 1, "type": 0, "text_node": {"content": instruction}}, ide_node(2, False)],
              "Writing the test.",
              [node(0, 0, "Writing the test.", ms=T + 9000),
               node(1, 5, tool_use=tool_use("toolu_11Save", "save-file",
                                            {"path": "tests/config_path.rs",
                                             "file_content": "#[test]\nfn path_is_set() {}\n"},
                                            T + 9100), ms=T + 9100),
               node(2, 10, token_usage=usage(4, 70, 0, 5200), ms=T + 9200)],
              "2026-11-10T10:15:12.000Z", model="claude-haiku-4-5"),
        entry(2, "c2f1d3e5-0002-4b6c-9d7e-8f9a0b1c2d3e", "",
              [result(1, "toolu_11Save", "File saved: tests/config_path.rs", ms=T + 9100)],
              "Wrote tests/config_path.rs.",
              [node(0, 0, "Wrote tests/config_path.rs.", ms=T + 11000),
               node(1, 10, token_usage=usage(2, 15, 5200, 80), ms=T + 11100)],
              "2026-11-10T10:15:14.000Z", model="claude-haiku-4-5"),
    ]
    return {"sessionId": CHILD, "created": "2026-11-10T10:15:10.500Z",
            "modified": "2026-11-10T10:15:14.000Z", "parentConversationId": MAIN,
            "agentState": {"modelId": "claude-haiku-4-5"}, "chatHistory": history}


def main():
    shutil.rmtree(os.path.join(HERE, "home"), ignore_errors=True)
    os.makedirs(SESSIONS)
    main_data = main_session()
    for session_id, data in [(MAIN, main_data), (CHILD, child_session())]:
        with open(os.path.join(SESSIONS, session_id + ".json"), "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2, ensure_ascii=False)
    # A copy kept before a rewind: not a session (its words must not be read twice).
    backup = dict(main_data, chatHistory=main_data["chatHistory"][:3])
    with open(os.path.join(SESSIONS, MAIN + "-backup1.json"), "w", encoding="utf-8") as out:
        json.dump(backup, out, indent=2)


if __name__ == "__main__":
    main()
