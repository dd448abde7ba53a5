//! Renders a session plan as a Claude Code transcript
//! (`projects/-home-dev-src-<project>/<uuid>.jsonl`): `parentUuid`-chained user and assistant
//! records with thinking, text and `tool_use` blocks, `tool_result` user records with
//! `toolUseResult`, `turn_duration` system records, and for some sessions a sub-agent
//! transcript under `<uuid>/subagents/agent-<id>.jsonl` with its `.meta.json`, spawned by a
//! `Task` tool call. Sessions of a chain carry their shared `slug` on every record.

use serde_json::{Value, json};

use crate::GeneratedFile;
use crate::clock::Clock;
use crate::plan::{SessionPlan, Step, TurnPlan};
use crate::rng::Rng;

/// The identity shared by every record of one transcript.
struct Transcript<'a> {
    plan: &'a SessionPlan,
    session_id: &'a str,
    cwd: String,
    agent_id: Option<&'a str>,
    lines: Vec<Value>,
    parent: Option<String>,
    counter: u64,
    message_counter: u64,
}

pub fn render(plan: &SessionPlan, rng: &mut Rng) -> Vec<GeneratedFile> {
    let mut clock = Clock::starting_at(plan.started_at);
    let mut transcript = Transcript::new(plan, &plan.native_id, None);
    let mut files = Vec::new();
    let directory = format!("claude/projects/-home-dev-src-{}", plan.project);
    for (turn_index, turn) in plan.turns.iter().enumerate() {
        let subagent = plan.subagent.as_deref().filter(|_| turn_index == 0);
        transcript.turn(turn, &mut clock, rng, subagent);
        if let Some(subagent) = subagent {
            files.extend(render_subagent(plan, subagent, &directory, &mut clock, rng));
        }
    }
    files.push(GeneratedFile::jsonl(
        format!("{directory}/{}.jsonl", plan.native_id),
        &transcript.lines,
    ));
    files
}

fn render_subagent(
    parent: &SessionPlan,
    subagent: &SessionPlan,
    directory: &str,
    clock: &mut Clock,
    rng: &mut Rng,
) -> Vec<GeneratedFile> {
    let mut transcript = Transcript::new(parent, &parent.native_id, Some(&subagent.native_id));
    for turn in &subagent.turns {
        transcript.turn(turn, clock, rng, None);
    }
    let stem = format!(
        "{directory}/{}/subagents/agent-{}",
        parent.native_id, subagent.native_id
    );
    let meta = json!({"agentType": "code-reviewer", "description": "Review the change"});
    vec![
        GeneratedFile::jsonl(format!("{stem}.jsonl"), &transcript.lines),
        GeneratedFile::new(format!("{stem}.meta.json"), meta.to_string().into_bytes()),
    ]
}

impl<'a> Transcript<'a> {
    fn new(
        plan: &'a SessionPlan,
        session_id: &'a str,
        agent_id: Option<&'a str>,
    ) -> Transcript<'a> {
        Transcript {
            plan,
            session_id,
            cwd: plan.cwd(),
            agent_id,
            lines: Vec::new(),
            parent: None,
            counter: 0,
            message_counter: 0,
        }
    }

    fn turn(
        &mut self,
        turn: &TurnPlan,
        clock: &mut Clock,
        rng: &mut Rng,
        subagent: Option<&SessionPlan>,
    ) {
        clock.tick(rng);
        let started = clock.unix_seconds();
        self.push(
            clock,
            "user",
            json!({"message": {"role": "user", "content": turn.user_text}}),
        );
        for step in &turn.steps {
            clock.tick(rng);
            self.step(clock, step);
        }
        if let Some(subagent) = subagent {
            clock.tick(rng);
            self.task_call(clock, subagent);
        }
        clock.tick(rng);
        self.assistant(
            clock,
            json!([{"type": "text", "text": turn.final_text}]),
            "end_turn",
        );
        if self.agent_id.is_none() {
            let duration = (clock.unix_seconds() - started) * 1000;
            self.push(clock, "system", json!({"subtype": "turn_duration", "durationMs": duration, "messageCount": turn.steps.len() + 2, "isMeta": false}));
        }
    }

    fn step(&mut self, clock: &Clock, step: &Step) {
        match step {
            Step::Reasoning(text) => {
                self.assistant(clock, json!([{"type": "thinking", "thinking": text, "signature": "EqQBCkYIBxgCKkBsig"}]), "tool_use");
            }
            Step::Message(text) => {
                self.assistant(clock, json!([{"type": "text", "text": text}]), "tool_use");
            }
            Step::Tool {
                command,
                output,
                exit_code,
            } => {
                let tool_id = format!("toolu_{:016x}", self.counter);
                self.assistant(clock, json!([{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command, "description": "Run the command"}}]), "tool_use");
                let is_error = *exit_code != 0;
                let content = if is_error {
                    format!("Exit code {exit_code}\n{output}")
                } else {
                    output.clone()
                };
                self.push(clock, "user", json!({
                    "message": {"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": content, "is_error": is_error}]},
                    "toolUseResult": {"stdout": output, "stderr": "", "interrupted": false, "isImage": false}
                }));
            }
        }
    }

    fn task_call(&mut self, clock: &Clock, subagent: &SessionPlan) {
        let tool_id = format!("toolu_task{:012x}", self.counter);
        let prompt = subagent
            .turns
            .first()
            .map(|turn| turn.user_text.as_str())
            .unwrap_or_default();
        self.assistant(clock, json!([{"type": "tool_use", "id": tool_id, "name": "Task", "input": {"description": "Review the change", "prompt": prompt, "subagent_type": "code-reviewer"}}]), "tool_use");
        let report = subagent
            .turns
            .last()
            .map(|turn| turn.final_text.as_str())
            .unwrap_or_default();
        self.push(clock, "user", json!({
            "message": {"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": [{"type": "text", "text": report}]}]},
            "toolUseResult": {"status": "completed", "agentId": subagent.native_id, "agentType": "code-reviewer", "totalDurationMs": 21400, "totalToolUseCount": 2, "content": [{"type": "text", "text": report}]}
        }));
    }

    fn assistant(&mut self, clock: &Clock, content: Value, stop_reason: &str) {
        self.message_counter += 1;
        let message_id = format!("msg_{:08x}{}", self.message_counter, &self.session_id[..8]);
        self.push(clock, "assistant", json!({
            "message": {"model": self.plan.model, "id": message_id, "type": "message", "role": "assistant", "content": content, "stop_reason": stop_reason, "stop_sequence": null, "usage": {"input_tokens": 12, "output_tokens": 80}},
            "requestId": format!("req_{message_id}")
        }));
    }

    /// Appends a record with the common envelope fields and chains it to the previous one.
    fn push(&mut self, clock: &Clock, kind: &str, body: Value) {
        self.counter += 1;
        // A sub-agent's lines carry the first four characters of its id before the counter,
        // so they never collide with the parent's (the counter keeps them distinct).
        let agent_tag = self.agent_id.map_or("0000", |agent_id| &agent_id[..4]);
        let uuid = format!(
            "{}-{agent_tag}{:08x}",
            &self.session_id[..23.min(self.session_id.len())],
            self.counter
        );
        let mut record = json!({
            "parentUuid": self.parent,
            "isSidechain": self.agent_id.is_some(),
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.114",
            "gitBranch": self.plan.branch,
            "type": kind,
        });
        if let Some(agent_id) = self.agent_id {
            record["agentId"] = json!(agent_id);
        }
        if let Some(slug) = &self.plan.slug {
            record["slug"] = json!(slug);
        }
        if let (Value::Object(fields), Value::Object(extra)) = (&mut record, body) {
            fields.extend(extra);
        }
        record["uuid"] = json!(uuid);
        record["timestamp"] = json!(clock.iso());
        self.parent = Some(uuid);
        self.lines.push(record);
    }
}
