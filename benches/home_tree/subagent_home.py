#!/usr/bin/env python3
"""A generated Codex home where sub-agents are ~80% of the bytes (issue #53: sub-agent bloat).

Usage: benches/home_tree/subagent_home.py HOME --sessions N [--seed S] [--copies-unmarked]
                                          [--fork-style verbatim|filtered] [--extended-events]

Writes N parent rollouts under HOME/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl; each
parent spawns 3-6 sub-agents with `spawn_agent` (forked context), and each sub-agent's rollout is
written the way codex-rs writes a forked spawn (see docs/CODEX-FORKED-SPAWNS.md):

1. the child's own `session_meta` (source.subagent.thread_spawn{parent_thread_id, depth, ...},
   forked_from_id = the parent), stamped when the file is materialized;
2. the parent's rollout up to and including the `spawn_agent` function_call, line for line,
   the parent's own `session_meta` first, every line re-stamped in one burst (the recorder stamps
   each line with the time it writes it);
   --fork-style verbatim (default, `spawn_agent{fork_context:true}` of the 0.11x-0.13x CLIs):
     every line, then a synthetic function_call_output for the spawn call ("You are the newly
     spawned agent. The prior conversation history was forked from your parent agent. ...");
   --fork-style filtered (codex-rs now, `keep_forked_rollout_item` for FullHistory forks):
     session_meta, turn_context, event_msg, compacted and user/developer/system messages and
     final-answer assistant messages only; reasoning, tool calls and outputs are dropped;
3. the child's own turn (task_started with a UUIDv7 turn_id minted after the child's id,
   turn_context, the task as user message, tool calls, final answer, task_complete).

--copies-unmarked writes the same home with the copied history as if it were the sub-agent's own
lines: the copy keeps its lines but no foreign `session_meta` marks where it starts (the
"stored as copies" baseline; the only bytes missing are the parent's meta lines, printed).
--extended-events also writes `exec_command_end` events (a rollout recorded with
persist_extended_history), which a filtered fork keeps, so its copies stay heavy.

Line shapes are those of tests/fixtures/codex/sessions/2026/03/14 (the fixtures
benches/home_tree/generate.py copies) and of a real 0.118 sub-agent rollout. Deterministic for a
seed: session k depends only on (seed, k), so a smaller N writes a subset of a larger one.
The split (parents, sub-agents, of which copied) is printed at the end.
"""
import argparse
import base64
import json
import random
import sys
import time
import uuid
from pathlib import Path

BASE_MS = 1_767_603_600_000  # 2026-01-05T09:00:00Z
SESSION_SPACING_MS = 13_320_000  # 3.7 h between parents: 2000 sessions span ~308 days
CONTEXT_WINDOW = 258_400
FORKED_SPAWN_AGENT_OUTPUT_MESSAGE = (
    "You are the newly spawned agent. The prior conversation history was forked from your "
    "parent agent. Treat the next user message as your new task, and use the forked history "
    "only as background context."
)
NICKNAMES = (
    "Epicurus Ampere Noether Hypatia Euler Curie Turing Lovelace Darwin Kepler Faraday Pascal "
    "Gauss Hopper Boole Leibniz Galois Fermat Tesla Planck Bohr Dirac Fourier Laplace"
).split()
ROLES = ["explorer", "worker", "default", "reviewer"]
WORDS = (
    "the a to of and in for with on that this is it we parquet schema index session event "
    "test tests flaky migration row group column file files writer reader batch segment "
    "manifest table query search token tokens cache cached order sorted unsorted read_dir "
    "path paths error errors result results fix fixed failing passes retry timeout lock "
    "commit publish snapshot delta store storage bytes size compact compaction merge shard "
    "worker thread async await future stream buffer offset line lines json jsonl payload "
    "field fields type types struct enum trait impl module crate function call calls "
    "output input because so then now first next also only still when which where why how "
    "check checked inspect inspected compare compared run ran build change changed update "
    "updated keep kept drop dropped skip skipped parse parser parsed copy copied history "
    "parent child agent agents spawn spawned fork forked replay replayed turn turns model "
    "config option options default value values null empty missing duplicate duplicates "
    "count counted limit limits memory disk ci log logs trace span metric benchmark"
).split()
MODULES = (
    "ingest store search service indexer model query catalog manifest delta publish "
    "segment scan writer reader schema cli serve mcp harness support lines text tools"
).split()
TYPES = (
    "Session Event RawEvent Manifest Segment Writer Reader Schema Batch Record Line Index "
    "Store Catalog Query Token Usage Parser Scan Publish Commit Snapshot Options Config"
).split()
BASE_INSTRUCTIONS_SEED = 7


def uuid7(ms: int, rng: random.Random) -> str:
    rand = rng.getrandbits(74)
    value = (
        (ms & ((1 << 48) - 1)) << 80
        | 0x7 << 76
        | (rand >> 62) << 64
        | 0b10 << 62
        | (rand & ((1 << 62) - 1))
    )
    return str(uuid.UUID(int=value))


def iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sentence(rng: random.Random, low: int, high: int) -> str:
    text = " ".join(rng.choices(WORDS, k=rng.randint(low, high)))
    return text[0].upper() + text[1:] + "."


def paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(sentence(rng, 6, 22) for _ in range(sentences))


class Pools:
    """Source lines, file paths and fixed prompts shared by every session of a run."""

    def __init__(self, seed: int):
        rng = random.Random(f"pools/{seed}")
        idents = [f"{a}_{b}" for a in WORDS[:90] for b in WORDS[90:150]]
        rng.shuffle(idents)
        self.idents = idents[:3000]
        self.files = sorted(
            {
                f"{rng.choice(['src', 'src', 'tests', 'benches'])}/{rng.choice(MODULES)}/"
                f"{rng.choice(self.idents)}.rs"
                for _ in range(600)
            }
        )
        templates = [
            "    let {a} = {b}.{c}(&{d})?;",
            "    pub(crate) fn {a}(&self, {b}: &{T}) -> Result<{U}> {{",
            "        if {a}.{b}() {{ return Ok({c}); }}",
            "    // {s}",
            "        {a}.insert({b}.clone(), {c});",
            "use crate::{m}::{T};",
            "    for {a} in {b}.iter().filter(|{c}| !{c}.{d}.is_empty()) {{",
            "        .map(|{a}| {a}.{b}.len() as u64)",
            "    assert_eq!({a}.{b}, {c}, \"{s}\");",
            "#[derive(Debug, Clone, PartialEq)]",
            "pub struct {T} {{ {a}: Vec<{U}>, {b}: Option<String> }}",
            "    }}",
            "",
        ]
        lines = []
        for _ in range(8000):
            template = rng.choice(templates)
            lines.append(
                template.format(
                    a=rng.choice(self.idents),
                    b=rng.choice(self.idents),
                    c=rng.choice(self.idents),
                    d=rng.choice(self.idents),
                    m=rng.choice(MODULES),
                    T=rng.choice(TYPES),
                    U=rng.choice(TYPES),
                    s=sentence(rng, 4, 12).rstrip("."),
                )
            )
        self.code = lines
        text_rng = random.Random(BASE_INSTRUCTIONS_SEED)
        self.base_instructions = (
            "You are Codex, a coding agent based on GPT-5. You and the user share the same "
            "workspace and collaborate to achieve the user's goals.\n\n"
            + "\n\n".join(f"# {w.title()}\n\n{paragraph(text_rng, 9)}" for w in WORDS[10:22])
        )
        self.permissions = (
            "<permissions instructions>\nFilesystem sandboxing defines which files can be read "
            "or written. `sandbox_mode` is `workspace-write`.\n"
            + "\n".join(paragraph(text_rng, 5) for _ in range(8))
            + "\n</permissions instructions>"
        )
        self.agents_md = "\n".join(paragraph(text_rng, 4) for _ in range(4))


class Rollout:
    """Lines of one rollout file as (ms, type, serialized payload), plus a clock."""

    def __init__(self, ms: int):
        self.lines: list[tuple[int, str, str]] = []
        self.now = ms

    def add(self, kind: str, payload: dict, advance: int = 1) -> None:
        self.now += advance
        self.lines.append((self.now, kind, dumps(payload)))

    @staticmethod
    def render(ms: int, kind: str, payload: str) -> str:
        return f'{{"timestamp":"{iso(ms)}","type":"{kind}","payload":{payload}}}\n'


class Turns:
    """Writes Codex turns (the line shapes esker's codex parser reads) into a rollout."""

    def __init__(self, pools: Pools, rng: random.Random, rollout: Rollout, cwd: str,
                 extended: bool):
        self.pools = pools
        self.rng = rng
        self.out = rollout
        self.cwd = cwd
        self.extended = extended
        self.total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
                      "reasoning_output_tokens": 0, "total_tokens": 0}
        self.turn_id = ""

    def call_id(self) -> str:
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        return "call_" + "".join(self.rng.choices(alphabet, k=24))

    def start_turn(self, prompt: str, first: bool, model: str) -> None:
        rng, out = self.rng, self.out
        out.now += rng.randint(2, 40)
        self.turn_id = uuid7(out.now, rng)
        out.add("event_msg", {"type": "task_started", "turn_id": self.turn_id,
                              "started_at": out.now // 1000,
                              "model_context_window": CONTEXT_WINDOW,
                              "collaboration_mode_kind": "default"})
        if first:
            message = lambda role, text: {"type": "message", "role": role,
                                          "content": [{"type": "input_text", "text": text}]}
            out.add("response_item", message("developer", self.pools.permissions))
            out.add("response_item", message(
                "user", f"# AGENTS.md instructions for {self.cwd}\n\n<INSTRUCTIONS>\n"
                        f"{self.pools.agents_md}\n</INSTRUCTIONS>"))
            out.add("response_item", message(
                "user", f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>bash</shell>\n"
                        f"  <current_date>{iso(out.now)[:10]}</current_date>\n"
                        f"  <timezone>UTC</timezone>\n</environment_context>"))
        out.add("turn_context", {
            "turn_id": self.turn_id, "cwd": self.cwd, "current_date": iso(out.now)[:10],
            "timezone": "UTC", "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "writable_roots": [],
                               "network_access": False},
            "model": model, "personality": "pragmatic",
            "collaboration_mode": {"mode": "default",
                                   "settings": {"model": model, "reasoning_effort": "medium"}},
            "effort": "medium", "summary": "auto",
            "truncation_policy": {"mode": "tokens", "limit": 10000}})
        out.add("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": prompt}]})
        out.add("event_msg", {"type": "user_message", "message": prompt, "images": [],
                              "local_images": [], "text_elements": []})
        out.add("event_msg", {"type": "token_count", "info": None,
                              "rate_limits": self.rate_limits()}, advance=rng.randint(100, 300))
        self.turn_start = out.now

    def rate_limits(self) -> dict:
        return {"limit_id": "codex", "limit_name": None,
                "primary": {"used_percent": 41.0, "window_minutes": 300,
                            "resets_at": self.out.now // 1000 + 9000},
                "secondary": {"used_percent": 12.0, "window_minutes": 10080,
                              "resets_at": self.out.now // 1000 + 400000},
                "credits": None, "plan_type": "plus"}

    def token_count(self) -> None:
        rng = self.rng
        last_input = 20_000 + rng.randint(0, 120_000)
        last = {"input_tokens": last_input,
                "cached_input_tokens": last_input - rng.randint(500, 6000),
                "output_tokens": rng.randint(80, 2500), "reasoning_output_tokens": 0,
                "total_tokens": 0}
        last["reasoning_output_tokens"] = last["output_tokens"] // 2
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        for key in self.total:
            self.total[key] += last[key]
        self.out.add("event_msg", {"type": "token_count",
                                   "info": {"total_token_usage": dict(self.total),
                                            "last_token_usage": last,
                                            "model_context_window": CONTEXT_WINDOW},
                                   "rate_limits": self.rate_limits()})

    def reasoning(self) -> None:
        rng = self.rng
        title = " ".join(rng.choices(WORDS, k=rng.randint(2, 5))).title()
        secret = base64.b64encode(rng.randbytes(rng.randint(500, 2600))).decode()
        self.out.add("response_item", {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": f"**{title}**\n\n{sentence(rng, 8, 30)}"}],
            "content": None, "encrypted_content": "gAAAAAB" + secret},
            advance=rng.randint(1500, 12000))

    def assistant(self, text: str, phase: str) -> None:
        self.out.add("event_msg", {"type": "agent_message", "message": text, "phase": phase,
                                   "memory_citation": None}, advance=self.rng.randint(200, 3000))
        self.out.add("response_item", {"type": "message", "role": "assistant",
                                       "content": [{"type": "output_text", "text": text}],
                                       "phase": phase})

    def command(self) -> tuple[str, str, int]:
        """A shell command, its output and exit code."""
        rng, pools = self.rng, self.pools
        kind = rng.choices(["rg", "sed", "test", "diff", "ls"], weights=[4, 5, 2, 2, 1])[0]
        path = rng.choice(pools.files)
        size = min(int(rng.lognormvariate(3.7, 0.9)), 500)
        exit_code = 0
        if kind == "rg":
            word = rng.choice(pools.idents)
            cmd = f'rg -n "{word}" src tests'
            body = "\n".join(f"{rng.choice(pools.files)}:{rng.randint(1, 2400)}:{line.strip()}"
                             for line in rng.choices(pools.code, k=size))
        elif kind == "sed":
            start = rng.randint(1, 1500)
            cmd = f"sed -n '{start},{start + size}p' {path}"
            body = "\n".join(rng.choices(pools.code, k=size))
        elif kind == "test":
            module = rng.choice(MODULES)
            cmd = f"cargo test -p esker {module}"
            names = rng.choices(pools.idents, k=size)
            failed = rng.random() < 0.25
            exit_code = 101 if failed else 0
            body = (f"running {len(names)} tests\n"
                    + "\n".join(f"test {module}::tests::{n} ... ok" for n in names)
                    + (f"\n\n---- {module}::tests::{names[0]} stdout ----\n"
                       + "\n".join(rng.choices(pools.code, k=12)) if failed else "")
                    + f"\n\ntest result: {'FAILED' if failed else 'ok'}. {len(names)} passed; "
                      f"{int(failed)} failed; 0 ignored; finished in "
                      f"{rng.randint(1, 90) / 10:.2f}s")
        elif kind == "diff":
            cmd = f"git diff -- {path}"
            body = (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
                    f"@@ -{rng.randint(1, 900)},{size} +{rng.randint(1, 900)},{size} @@\n"
                    + "\n".join(rng.choice("+- ") + line for line in rng.choices(pools.code, k=size)))
        else:
            cmd = f"ls -la {path.rsplit('/', 1)[0]}"
            body = "\n".join(f"-rw-r--r-- 1 dev dev {rng.randint(200, 90000):>6} "
                             f"Mar {rng.randint(1, 28):>2} 10:{rng.randint(10, 59)} "
                             f"{f.rsplit('/', 1)[1]}" for f in rng.choices(pools.files, k=size))
        return cmd, body, exit_code

    def exec_step(self) -> None:
        """One model step: reasoning, maybe a commentary, 1-3 exec_command calls, outputs."""
        rng, out = self.rng, self.out
        self.reasoning()
        if rng.random() < 0.6:
            self.assistant(sentence(rng, 12, 45), "commentary")
        calls = []
        for _ in range(rng.choices([1, 2, 3], weights=[70, 25, 5])[0]):
            cmd, body, exit_code = self.command()
            call_id = self.call_id()
            out.add("response_item", {
                "type": "function_call", "name": "exec_command",
                "arguments": dumps({"cmd": cmd, "workdir": self.cwd, "yield_time_ms": 10000}),
                "call_id": call_id}, advance=rng.randint(5, 40))
            calls.append((call_id, cmd, body, exit_code))
        self.token_count()
        for call_id, cmd, body, exit_code in calls:
            seconds = rng.randint(1, 9000) / 1000
            out.now += int(seconds * 1000)
            if self.extended:
                out.add("event_msg", {
                    "type": "exec_command_end", "call_id": call_id, "turn_id": self.turn_id,
                    "command": ["/bin/bash", "-lc", cmd], "cwd": self.cwd,
                    "parsed_cmd": [{"type": "unknown", "cmd": cmd}], "source": "agent",
                    "stdout": "", "stderr": "", "aggregated_output": body[:10_000],
                    "exit_code": exit_code,
                    "duration": {"secs": int(seconds), "nanos": int(seconds % 1 * 1e9)},
                    "formatted_output": "", "status": "completed" if exit_code == 0 else "failed"})
            out.add("response_item", {
                "type": "function_call_output", "call_id": call_id,
                "output": f"Chunk ID: {rng.getrandbits(24):06x}\nWall time: {seconds:.1f} seconds\n"
                          f"Process exited with code {exit_code}\n"
                          f"Original token count: {len(body) // 4}\nOutput:\n{body}"})

    def finish_turn(self, final: str) -> None:
        rng = self.rng
        self.reasoning()
        self.assistant(final, "final_answer")
        self.token_count()
        self.out.add("event_msg", {"type": "task_complete", "turn_id": self.turn_id,
                                   "last_agent_message": final,
                                   "completed_at": self.out.now // 1000,
                                   "duration_ms": self.out.now - self.turn_start},
                     advance=rng.randint(3, 30))


def session_meta(pools: Pools, rng: random.Random, thread_id: str, created: int, cwd: str,
                 cli_version: str, source, forked_from: str | None = None,
                 agent: tuple[str, str] | None = None, thread_source: str | None = None) -> dict:
    meta = {"id": thread_id}
    if forked_from:
        meta["forked_from_id"] = forked_from
    meta.update({"timestamp": iso(created), "cwd": cwd, "originator": "codex_cli_rs",
                 "cli_version": cli_version, "source": source})
    if agent:
        meta["agent_nickname"], meta["agent_role"] = agent
    if thread_source:
        meta["thread_source"] = thread_source
    meta.update({"model_provider": "openai",
                 "base_instructions": {"text": pools.base_instructions}})
    if not isinstance(source, dict):
        meta["git"] = {"commit_hash": f"{rng.getrandbits(160):040x}",
                       "branch": f"fix/{rng.choice(pools.idents).replace('_', '-')}",
                       "repository_url": f"git@github.com:example/{cwd.rsplit('/', 1)[1]}.git"}
    return meta


def keep_forked_line(kind: str, payload: str) -> bool:
    """codex-rs `keep_forked_rollout_item` for a FullHistory fork, on a serialized line."""
    if kind != "response_item":
        return True  # session_meta, event_msg, turn_context, compacted
    item = json.loads(payload)
    if item.get("type") != "message":
        return False
    role = item.get("role")
    return role in ("system", "developer", "user") or (
        role == "assistant" and item.get("phase") == "final_answer")


class Home:
    def __init__(self, root: Path, args):
        self.root = root
        self.args = args
        self.pools = Pools(args.seed)
        self.cli_version = "0.118.0" if args.fork_style == "verbatim" else "0.151.0"
        self.bytes = {"parent": 0, "child": 0, "copied": 0, "marker_meta": 0}
        self.files = {"parent": 0, "child": 0}

    def write(self, thread_id: str, created: int, text: str, role: str) -> None:
        day = self.root / ".codex" / "sessions" / time.strftime("%Y/%m/%d", time.gmtime(created // 1000))
        day.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(created // 1000))
        data = text.encode()
        (day / f"rollout-{stamp}-{thread_id}.jsonl").write_bytes(data)
        self.bytes[role] += len(data)
        self.files[role] += 1

    def session(self, number: int) -> None:
        args, pools = self.args, self.pools
        rng = random.Random(f"{args.seed}/{number}")
        created = BASE_MS + number * SESSION_SPACING_MS + rng.randint(0, 3_000_000)
        parent_id = uuid7(created, rng)
        cwd = f"/home/dev/src/project{number % 40:02d}"
        model = "gpt-5.4"
        parent = Rollout(created + rng.randint(5, 60))
        parent.add("session_meta", session_meta(pools, rng, parent_id, created, cwd,
                                                self.cli_version, "cli"), advance=0)
        turns = Turns(pools, rng, parent, cwd, args.extended_events)
        turn_count = rng.randint(3, 7)
        children = rng.randint(3, 6)
        later = range(max(1, turn_count // 2), turn_count)
        spawn_turns = sorted(rng.sample(later, min(2, len(later))))
        per_turn = {t: 0 for t in spawn_turns}
        for _ in range(children):
            per_turn[rng.choice(spawn_turns)] += 1
        for turn in range(turn_count):
            turns.start_turn(paragraph(rng, rng.randint(1, 4)), turn == 0, model)
            steps = rng.randint(3, 9)
            spawn_at = rng.randint(1, steps - 1) if per_turn.get(turn) else -1
            for step in range(steps):
                if step == spawn_at:
                    self.spawn_children(turns, parent_id, cwd, model, per_turn[turn], rng)
                turns.exec_step()
            turns.finish_turn(paragraph(rng, rng.randint(3, 12)))
        self.write(parent_id, created,
                   "".join(Rollout.render(*line) for line in parent.lines), "parent")

    def spawn_children(self, turns: Turns, parent_id: str, cwd: str, model: str, count: int,
                       rng: random.Random) -> None:
        """Parent steps that spawn `count` sub-agents with forked context, then wait for them."""
        parent = turns.out
        spawned = []
        for _ in range(count):
            turns.reasoning()
            call_id = turns.call_id()
            task = paragraph(rng, rng.randint(2, 5))
            role = rng.choice(ROLES)
            parent.add("response_item", {
                "type": "function_call", "name": "spawn_agent",
                "arguments": dumps({"message": task, "agent_type": role, "fork_context": True}),
                "call_id": call_id}, advance=rng.randint(5, 40))
            # The parent's rollout is flushed, then copied up to and including this call.
            child_id, nickname, final, end = self.child(parent.lines, parent.now, call_id,
                                                        parent_id, cwd, model, task, role, rng)
            spawned.append((child_id, final, end))
            parent.add("response_item", {
                "type": "function_call_output", "call_id": call_id,
                "output": dumps({"agent_id": child_id, "nickname": nickname})},
                advance=rng.randint(30, 200))
        turns.token_count()
        wait_id = turns.call_id()
        parent.add("response_item", {
            "type": "function_call", "name": "wait",
            "arguments": dumps({"ids": [c for c, _, _ in spawned], "timeout_ms": 600000}),
            "call_id": wait_id}, advance=rng.randint(800, 4000))
        parent.now = max(parent.now, max(end for _, _, end in spawned))
        parent.add("response_item", {
            "type": "function_call_output", "call_id": wait_id,
            "output": dumps({"status": {c: {"completed": final} for c, final, _ in spawned},
                             "timed_out": False})}, advance=rng.randint(20, 400))

    def child(self, parent_lines, spawn_ms, spawn_call_id, parent_id, cwd, model, task, role,
              rng: random.Random):
        args, pools = self.args, self.pools
        created = spawn_ms + rng.randint(2, 12)
        child_id = uuid7(created, rng)
        nickname = rng.choice(NICKNAMES)
        source = {"subagent": {"thread_spawn": {"parent_thread_id": parent_id, "depth": 1,
                                                "agent_path": None, "agent_nickname": nickname,
                                                "agent_role": role}}}
        meta = session_meta(pools, rng, child_id, created, cwd, self.cli_version, source,
                            forked_from=parent_id, agent=(nickname, role),
                            thread_source="subagent" if args.fork_style == "filtered" else None)
        # The file is materialized with the child's own meta first, then the buffered copy.
        burst = created + rng.randint(3, 20)
        out = [Rollout.render(burst, "session_meta", dumps(meta))]
        copied = 0
        for index, (_, kind, payload) in enumerate(parent_lines):
            if args.fork_style == "filtered" and not keep_forked_line(kind, payload):
                continue
            # Re-stamped as written: ~40 lines a millisecond, far under esker's 1 s pause.
            line = Rollout.render(burst + 1 + index // 40, kind, payload)
            if kind == "session_meta" and args.copies_unmarked:
                self.bytes["marker_meta"] += len(line.encode())
                continue
            out.append(line)
            copied += len(line.encode())
        own = Rollout(burst + 1 + len(parent_lines) // 40)
        if args.fork_style == "verbatim":
            own.add("response_item", {"type": "function_call_output", "call_id": spawn_call_id,
                                      "output": FORKED_SPAWN_AGENT_OUTPUT_MESSAGE}, advance=0)
        work = Turns(pools, rng, own, cwd, args.extended_events)
        work.start_turn(task, False, model)
        for _ in range(rng.randint(3, 8)):
            work.exec_step()
        final = paragraph(rng, rng.randint(3, 10))
        work.finish_turn(final)
        out.extend(Rollout.render(*line) for line in own.lines)
        self.bytes["copied"] += copied
        self.write(child_id, created, "".join(out), "child")
        return child_id, nickname, final, own.now

    def report(self) -> None:
        b, f = self.bytes, self.files
        total = b["parent"] + b["child"]
        pct = lambda part, whole: 100.0 * part / whole if whole else 0.0
        mb = lambda n: f"{n / 1e6:,.1f} MB"
        print(f"{f['parent']} parent rollouts + {f['child']} sub-agent rollouts, {mb(total)} "
              f"under {self.root / '.codex' / 'sessions'} (fork style {self.args.fork_style}"
              f"{', extended events' if self.args.extended_events else ''}"
              f"{', copies unmarked' if self.args.copies_unmarked else ''})")
        print(f"  parents:    {mb(b['parent']):>12}  {pct(b['parent'], total):5.1f}%")
        print(f"  sub-agents: {mb(b['child']):>12}  {pct(b['child'], total):5.1f}%")
        print(f"    copied parent history: {mb(b['copied']):>12}  "
              f"{pct(b['copied'], b['child']):5.1f}% of sub-agent bytes, "
              f"{pct(b['copied'], total):5.1f}% of all")
        print(f"    own work:              {mb(b['child'] - b['copied']):>12}")
        if self.args.copies_unmarked:
            print(f"    (parent session_meta lines left out of the copies: "
                  f"{mb(b['marker_meta'])})")
        print(f"  content once (parents + sub-agents' own work): "
              f"{mb(total - b['copied'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--sessions", type=int, required=True, help="parent sessions")
    parser.add_argument("--seed", type=int, default=53)
    parser.add_argument("--copies-unmarked", action="store_true",
                        help="write the copied history without the parent's session_meta")
    parser.add_argument("--fork-style", choices=["verbatim", "filtered"], default="verbatim")
    parser.add_argument("--extended-events", action="store_true",
                        help="also write exec_command_end events (persist_extended_history)")
    args = parser.parse_args()
    home = Home(args.home, args)
    for number in range(args.sessions):
        home.session(number)
    home.report()


if __name__ == "__main__":
    sys.exit(main())
