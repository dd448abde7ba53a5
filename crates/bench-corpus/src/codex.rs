//! Renders a session plan as an OpenAI Codex CLI rollout
//! (`sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`), record shapes as in real rollouts:
//! `session_meta`, per turn `task_started`, `turn_context`, the user message (response item and
//! `user_message` event), reasoning, `exec_command` calls and outputs, agent messages,
//! `token_count` and `task_complete`.

use serde_json::{Value, json};

use crate::GeneratedFile;
use crate::clock::Clock;
use crate::plan::{SessionPlan, Step};
use crate::rng::Rng;

pub fn render(plan: &SessionPlan, rng: &mut Rng) -> Vec<GeneratedFile> {
    let mut clock = Clock::starting_at(plan.started_at);
    let mut lines = Vec::new();
    let cwd = plan.cwd();
    lines.push(record(
        &clock,
        "session_meta",
        session_meta(plan, &clock, &cwd),
    ));
    for (turn_index, turn) in plan.turns.iter().enumerate() {
        let turn_id = format!("{}-{turn_index:04x}", &plan.native_id[..23]);
        clock.tick(rng);
        lines.push(record(&clock, "event_msg", json!({"type": "task_started", "turn_id": turn_id, "started_at": clock.unix_seconds(), "model_context_window": 258400, "collaboration_mode_kind": "default"})));
        lines.push(record(&clock, "turn_context", json!({"turn_id": turn_id, "cwd": cwd, "current_date": clock.format("%Y-%m-%d"), "timezone": "UTC", "approval_policy": "on-request", "sandbox_policy": {"type": "workspace-write", "writable_roots": [], "network_access": false}, "model": plan.model, "effort": "medium", "summary": "auto"})));
        lines.push(record(
            &clock,
            "response_item",
            message("user", "input_text", &turn.user_text, None),
        ));
        lines.push(record(&clock, "event_msg", json!({"type": "user_message", "message": turn.user_text, "images": [], "local_images": [], "text_elements": []})));
        for (step_index, step) in turn.steps.iter().enumerate() {
            clock.tick(rng);
            render_step(
                &mut lines,
                &clock,
                step,
                &format!("call_{turn_index}_{step_index}"),
                &cwd,
            );
        }
        clock.tick(rng);
        lines.push(record(&clock, "event_msg", token_count(turn_index)));
        lines.push(record(&clock, "event_msg", json!({"type": "agent_message", "message": turn.final_text, "phase": "final_answer", "memory_citation": null})));
        lines.push(record(
            &clock,
            "response_item",
            message(
                "assistant",
                "output_text",
                &turn.final_text,
                Some("final_answer"),
            ),
        ));
        lines.push(record(&clock, "event_msg", json!({"type": "task_complete", "turn_id": turn_id, "last_agent_message": turn.final_text, "completed_at": clock.unix_seconds(), "duration_ms": 6600})));
    }
    let start = Clock::starting_at(plan.started_at);
    let path = format!(
        "codex/sessions/{}/rollout-{}-{}.jsonl",
        start.format("%Y/%m/%d"),
        start.format("%Y-%m-%dT%H-%M-%S"),
        plan.native_id
    );
    vec![GeneratedFile::jsonl(path, &lines)]
}

fn render_step(lines: &mut Vec<Value>, clock: &Clock, step: &Step, call_id: &str, cwd: &str) {
    match step {
        Step::Reasoning(text) => {
            lines.push(record(clock, "response_item", json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": text}], "content": null, "encrypted_content": "gAAAAABpzR3kTq8vWw1dX2kPq9JmZc7nLr0sYbHfE4uGtVaC3oIeN6yMhKjUxO5pQwDs"})));
            lines.push(record(
                clock,
                "event_msg",
                json!({"type": "agent_reasoning", "text": text}),
            ));
        }
        Step::Message(text) => {
            lines.push(record(clock, "event_msg", json!({"type": "agent_message", "message": text, "phase": "commentary", "memory_citation": null})));
            lines.push(record(
                clock,
                "response_item",
                message("assistant", "output_text", text, Some("commentary")),
            ));
        }
        Step::Tool {
            command,
            output,
            exit_code,
        } => {
            let arguments =
                json!({"cmd": command, "workdir": cwd, "yield_time_ms": 10000}).to_string();
            lines.push(record(clock, "response_item", json!({"type": "function_call", "name": "exec_command", "arguments": arguments, "call_id": call_id})));
            let rendered = format!(
                "Chunk ID: 4f1a2b\nWall time: 0.4 seconds\nProcess exited with code {exit_code}\nOriginal token count: {}\nOutput:\n{output}",
                output.len() / 4
            );
            lines.push(record(
                clock,
                "response_item",
                json!({"type": "function_call_output", "call_id": call_id, "output": rendered}),
            ));
        }
    }
}

fn session_meta(plan: &SessionPlan, clock: &Clock, cwd: &str) -> Value {
    json!({"id": plan.native_id, "timestamp": clock.iso(), "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.116.0", "source": "cli", "model_provider": "openai", "base_instructions": {"text": "You are Codex, a coding agent based on GPT-5."}, "git": {"commit_hash": "3b9e0c41d2a7f5e8c6b1a0d9e8f7c6b5a4d3e2f1", "branch": plan.branch, "repository_url": format!("git@github.com:example/{}.git", plan.project)}})
}

fn message(role: &str, part: &str, text: &str, phase: Option<&str>) -> Value {
    let mut payload =
        json!({"type": "message", "role": role, "content": [{"type": part, "text": text}]});
    if let Some(phase) = phase {
        payload["phase"] = json!(phase);
    }
    payload
}

fn token_count(turn_index: usize) -> Value {
    let total = 9000 + turn_index as u64 * 1500;
    json!({"type": "token_count", "info": {"total_token_usage": {"input_tokens": total, "cached_input_tokens": total / 2, "output_tokens": 300, "reasoning_output_tokens": 120, "total_tokens": total + 300}, "model_context_window": 258400}})
}

fn record(clock: &Clock, kind: &str, payload: Value) -> Value {
    json!({"timestamp": clock.iso(), "type": kind, "payload": payload})
}
