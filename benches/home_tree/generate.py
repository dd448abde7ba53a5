#!/usr/bin/env python3
"""A generated huge home for `esker index` / `esker doctor` (issues #49, #53): FILES files in
the real layouts of the test fixtures, most of them sub-agent transcripts, as Codex and Claude
Code users' homes are (148-334 GB reported, most of it sub-agents).

Usage: benches/home_tree/generate.py HOME [FILES]   (default 100000)

Per Claude Code session: its transcript and 3 sub-agents (`<session>/subagents/agent-<id>.jsonl`
with `.meta.json`), 7 files; the rest Codex rollouts in `sessions/YYYY/MM/DD/`. Every id is
made unique by replacing the fixture's ids; nothing else changes, so each file parses as the
fixture does. The tree is written once; run it again with another HOME for a fresh one.
"""
import os
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
CLAUDE = ROOT / "claude/projects/-home-dev-webapp"
CLAUDE_ID = "3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58"
AGENT_ID = "a91f3c2d7e4b5a6c1"
CODEX = ROOT / "codex/sessions/2026/03/14"
CODEX_NAME = "rollout-2026-03-14T11-30-00-019cec1c-3f24-74fd-b12a-abfe228f219e.jsonl"
CODEX_ID = "019cec1c-3f24-74fd-b12a-abfe228f219e"
SUBAGENTS = 3


def main() -> None:
    home = Path(sys.argv[1])
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    parent = (CLAUDE / f"{CLAUDE_ID}.jsonl").read_text()
    agent = (CLAUDE / CLAUDE_ID / "subagents" / f"agent-{AGENT_ID}.jsonl").read_text()
    meta = (CLAUDE / CLAUDE_ID / "subagents" / f"agent-{AGENT_ID}.meta.json").read_text()
    rollout = (CODEX / CODEX_NAME).read_text()
    claude_sessions = files * 56 // 100 // (1 + 2 * SUBAGENTS)
    written = 0
    for number in range(claude_sessions):
        session = str(uuid.UUID(int=(1 << 64) + number))
        project = home / ".claude" / "projects" / f"-home-dev-project{number % 40:02d}"
        project.mkdir(parents=True, exist_ok=True)
        (project / f"{session}.jsonl").write_text(parent.replace(CLAUDE_ID, session))
        folder = project / session / "subagents"
        folder.mkdir(parents=True, exist_ok=True)
        for child in range(SUBAGENTS):
            agent_id = f"{number:012x}{child:05x}"[-17:]
            text = agent.replace(CLAUDE_ID, session).replace(AGENT_ID, agent_id)
            (folder / f"agent-{agent_id}.jsonl").write_text(text)
            (folder / f"agent-{agent_id}.meta.json").write_text(meta)
        written += 1 + 2 * SUBAGENTS
    number = 0
    while written < files:
        rollout_id = str(uuid.UUID(int=(2 << 64) + number))
        day = home / ".codex" / "sessions" / "2026" / f"{1 + number % 12:02d}" / f"{1 + number // 12 % 28:02d}"
        day.mkdir(parents=True, exist_ok=True)
        name = CODEX_NAME.replace(CODEX_ID, rollout_id)
        (day / name).write_text(rollout.replace(CODEX_ID, rollout_id))
        written += 1
        number += 1
    size = sum(entry.stat().st_size for entry in home.rglob("*") if entry.is_file())
    print(f"{written} files, {size / 1e6:.1f} MB under {home}", file=sys.stderr)


if __name__ == "__main__":
    main()
