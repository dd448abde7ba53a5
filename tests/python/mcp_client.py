#!/usr/bin/env python3
"""A third-party MCP client against `esker serve`: the official Python `mcp` SDK lists the
tools, searches, and opens a hit's event, turn and session, asserting on every result.

Usage: mcp_client.py ESKER_BIN DATA_DIR   (exits non-zero on the first failed check)
CI: `pip install mcp` then `cargo test --test it python_mcp_sdk_client_round_trip`
(the `it` test runs this script; ESKER_REQUIRE_PYTHON=1 makes a missing SDK a failure).
"""

import asyncio
import sys

import jsonschema  # installed with the mcp SDK

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EXPECTED_TOOLS = {"search_sessions", "open", "list_sessions", "get_ingest_status"}


def field(obj, snake, camel):
    """Reads a result attribute under the SDK 2.x (snake_case) or 1.x (camelCase) name."""
    return getattr(obj, snake, None) if hasattr(obj, snake) else getattr(obj, camel, None)


def envelope_of(result, tool):
    is_error = field(result, "is_error", "isError")
    envelope = field(result, "structured_content", "structuredContent")
    assert not is_error, f"{tool} failed: {envelope}"
    assert envelope["schema_version"] == f"moraine.mcp.{tool}.v1", envelope
    assert envelope["tool"] == tool, envelope
    assert envelope["warnings"] == [] or isinstance(envelope["warnings"], list)
    performance = envelope["performance"]
    assert performance["elapsed_ms"] >= 0 and performance["sla_target_ms"] > 0, performance
    text = result.content[0].text
    assert text.strip(), f"{tool} returned no text summary"
    return envelope


async def check_tools(session):
    """Checks the advertised tools; returns their output schemas by name."""
    listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == EXPECTED_TOOLS, sorted(tools)
    for tool in tools.values():
        schema = field(tool, "input_schema", "inputSchema")
        assert schema["additionalProperties"] is False, tool.name
        assert field(tool, "output_schema", "outputSchema")["type"] == "object", tool.name
        assert field(tool.annotations, "read_only_hint", "readOnlyHint") is True, tool.name
    return {name: field(tool, "output_schema", "outputSchema") for name, tool in tools.items()}


async def check_search_and_open(session):
    search = envelope_of(await session.call_tool("search_sessions", {"query": "parquet migration"}), "search_sessions")
    data = search["data"]
    assert search["request"]["n_hits"] == 10
    assert 1 <= data["result_count"] <= 10, data
    scores = [hit["score"] for hit in data["results"]]
    assert all(0.0 <= score <= 1.0 for score in scores), scores
    assert scores == sorted(scores, reverse=True), scores
    hit = data["results"][0]
    assert hit["rank"] == 1 and hit["id"] == hit["event"]["id"]
    assert hit["event"]["type"] in {"user_input", "assistant_response", "tool_response"}
    handles = hit["open"]

    event = envelope_of(await session.call_tool("open", {"id": handles["event_id"]}), "open")["data"]
    assert event["kind"] == "event"
    assert event["event"]["id"] == handles["event_id"]
    assert event["content"]["truncated"] is False and event["content"]["text"]
    assert event["traversal"]["turn_id"] == handles["turn_id"]
    assert event["traversal"]["session_id"] == handles["session_id"]

    turn = envelope_of(await session.call_tool("open", {"id": handles["turn_id"]}), "open")["data"]
    assert turn["kind"] == "turn" and turn["turn"]["id"] == handles["turn_id"]
    assert handles["event_id"] in [summary["id"] for summary in turn["events"]]
    assert turn["traversal"]["session_id"] == handles["session_id"]

    opened = envelope_of(await session.call_tool("open", {"id": handles["session_id"]}), "open")["data"]
    assert opened["kind"] == "session" and opened["session"]["id"] == handles["session_id"]
    assert handles["turn_id"] in [summary["id"] for summary in opened["turns"]]
    assert opened["session"]["title"]


async def check_list_and_errors(session, output_schemas):
    window = {"start_datetime": "2000-01-01T00:00:00Z", "end_datetime": "2100-01-01T00:00:00+00:00"}
    listed = envelope_of(await session.call_tool("list_sessions", window), "list_sessions")["data"]
    assert listed["result_count"] >= 1, listed
    first = listed["sessions"][0]["open"]["session_id"]
    envelope_of(await session.call_tool("open", {"id": first}), "open")

    rejected = await session.call_tool("search_sessions", {"query": "x", "n_hits": "10"})
    assert field(rejected, "is_error", "isError") is True
    error = field(rejected, "structured_content", "structuredContent")
    assert error["schema_version"] == "moraine.mcp.error.v1", error
    assert error["error"]["code"] == "invalid_request", error
    # The SDK validates success results; error envelopes must fit the advertised schema too.
    jsonschema.validate(error, output_schemas["search_sessions"])

    missing = await session.call_tool("open", {"id": "event:evt_01J9DOESNOTEXIST000000000000"})
    missing_error = field(missing, "structured_content", "structuredContent")
    assert missing_error["error"]["code"] == "not_found", missing_error
    jsonschema.validate(missing_error, output_schemas["open"])


async def main(esker_bin, data_dir):
    server = StdioServerParameters(command=esker_bin, args=["serve", "--no-index", "--data-dir", data_dir])
    async with stdio_client(server) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream) as session:
            initialized = await session.initialize()
            server_info = field(initialized, "server_info", "serverInfo")
            assert server_info.name == "esker", server_info
            assert initialized.instructions and "search_sessions" in initialized.instructions
            output_schemas = await check_tools(session)
            await check_search_and_open(session)
            await check_list_and_errors(session, output_schemas)
    print("mcp_client.py: all checks passed")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
