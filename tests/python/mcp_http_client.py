#!/usr/bin/env python3
"""The official Python `mcp` SDK against `esker serve --http` (issue #54): its streamable HTTP
client, with a bearer token, initializes, lists the tools, searches and opens a hit's event,
turn and session (the same checks as mcp_client.py over stdio).

Usage: mcp_http_client.py URL TOKEN   (exits non-zero on the first failed check)
Run by `cargo test --test it python_sdk_round_trip_over_http` (ESKER_REQUIRE_PYTHON=1 makes a
missing SDK a failure).
"""

import asyncio
import contextlib
import sys

from mcp import ClientSession

from mcp_client import check_search_and_open, check_tools, field

try:  # SDK 2.x: the HTTP client carries the headers
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    @contextlib.asynccontextmanager
    async def connect(url, token):
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with client, streamable_http_client(url, http_client=client) as streams:
            yield streams

except ImportError:  # SDK 1.x
    from mcp.client.streamable_http import streamablehttp_client

    def connect(url, token):
        return streamablehttp_client(url, headers={"Authorization": f"Bearer {token}"})


async def main(url, token):
    async with connect(url, token) as streams:
        read_stream, write_stream = streams[0], streams[1]
        async with ClientSession(read_stream, write_stream) as session:
            initialized = await session.initialize()
            server_info = field(initialized, "server_info", "serverInfo")
            assert server_info.name == "esker", server_info
            assert initialized.instructions and "search_sessions" in initialized.instructions
            await check_tools(session)
            await check_search_and_open(session)
    print("mcp_http_client.py: all checks passed")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
