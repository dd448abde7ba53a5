#!/usr/bin/env bash
# The one-command install, checked as a new user meets it: builds the `esker` wheel (maturin
# `bin` bindings over the release binary) unless one is given, installs it into a fresh
# virtualenv, and from an empty home outside any checkout runs the README's main job through
# the installed binary: `esker index` (no agent history, so the sample built into the binary)
# and one MCP `search_sessions` call to `esker serve` through the official Python MCP SDK.
# Also checks `esker --version` and that `esker setup` registers the installed binary's path.
#
# Usage: tests/install/wheel_check.sh [WHEEL]
#   ESKER_WHEEL_PROFILE=dev  build the wheel from the debug profile (a quick check of the
#                            mechanics; the release profile is the default and what ships)
# Not part of `cargo test` (it needs a release build, ~30 minutes cold on 2 cores).
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

wheel="${1:-}"
if [[ -z "$wheel" ]]; then
    python3 -m pip install --quiet --disable-pip-version-check "maturin>=1.9,<2"
    profile="${ESKER_WHEEL_PROFILE:-release}"
    (cd "$repo" && python3 -m maturin build --profile "$profile" --out "$work/wheels" >&2)
    wheel="$(ls "$work"/wheels/esker-*.whl)"
fi
echo "wheel: $wheel" >&2

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "$wheel" mcp
esker="$work/venv/bin/esker"
test -x "$esker"

home="$work/home"
mkdir -p "$home"
cd "$work"
run() {
    env -i PATH="$work/venv/bin:/usr/bin:/bin" HOME="$home" "$@"
}

version="$(run esker --version)"
echo "$version" >&2
[[ "$version" =~ ^esker\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [0-9a-z]+,\ store\ format\ [0-9]+\)$ ]] \
    || { echo "unexpected --version: $version" >&2; exit 1; }

index_log="$(run esker index -q 2>&1)"
echo "$index_log" >&2
grep -q SAMPLE <<<"$index_log" || { echo "esker index did not index the bundled sample" >&2; exit 1; }

run esker setup --dry-run --client claude --json >"$work/setup.json"
"$work/venv/bin/python" - "$work/setup.json" "$esker" <<'PY'
import json, sys
reports = json.load(open(sys.argv[1]))
change = json.dumps(reports)
assert sys.argv[2] in change, f"setup does not register the installed binary {sys.argv[2]}: {change}"
PY

run "$work/venv/bin/python" - "$esker" <<'PY'
import asyncio, os, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=["serve", "--no-watch"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("search_sessions", {"query": "parquet migration"})
            envelope = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
            assert envelope and envelope["schema_version"] == "moraine.mcp.search_sessions.v1", envelope
            count = envelope["data"]["result_count"]
            assert count >= 1, envelope
            print(f"search_sessions through the installed wheel: {count} hits", file=sys.stderr)

asyncio.run(main())
PY
echo "wheel check passed" >&2
