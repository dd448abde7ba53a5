//! Renders a session plan as a Gemini CLI chat (`tmp/<project>/chats/session-<time>-<id>`):
//! either the JSONL form (a header line, one line per message, `$set` updates) or the whole-file
//! JSON form (`messages` array). Reasoning becomes `thoughts`, tool steps `toolCalls` with a
//! `functionResponse` result.

use serde_json::{Value, json};

use crate::GeneratedFile;
use crate::clock::Clock;
use crate::plan::{SessionPlan, Step};
use crate::rng::Rng;

const PROJECT_HASH: &str = "3b8e5d0f6a1c4e7b92d0a5f8c3e6b1d4f7a0c3e6b9d2f5a8c1e4b7d0a3f6c9e2";

pub fn render(plan: &SessionPlan, rng: &mut Rng, whole_json: bool) -> Vec<GeneratedFile> {
    let mut clock = Clock::starting_at(plan.started_at);
    let start_time = clock.iso();
    let messages = messages(plan, &mut clock, rng);
    let header = json!({"sessionId": plan.native_id, "projectHash": PROJECT_HASH, "startTime": start_time, "lastUpdated": clock.iso(), "kind": "main"});
    let stem = format!(
        "gemini/tmp/{}/chats/session-{}-{}",
        plan.project,
        Clock::starting_at(plan.started_at).format("%Y-%m-%dT%H-%M"),
        &plan.native_id[..8]
    );
    if whole_json {
        let mut document = header;
        document["messages"] = Value::Array(messages);
        let bytes = serde_json::to_vec_pretty(&document).unwrap_or_default();
        return vec![GeneratedFile::new(format!("{stem}.json"), bytes)];
    }
    let mut lines = vec![header];
    for message in messages {
        let updated = message["timestamp"].clone();
        lines.push(message);
        lines.push(json!({"$set": {"lastUpdated": updated}}));
    }
    vec![GeneratedFile::jsonl(format!("{stem}.jsonl"), &lines)]
}

fn messages(plan: &SessionPlan, clock: &mut Clock, rng: &mut Rng) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut counter = 0u64;
    let next_id = |counter: &mut u64| {
        *counter += 1;
        format!("{}-{:012x}", &plan.native_id[..23], counter)
    };
    for turn in &plan.turns {
        clock.tick(rng);
        messages.push(json!({"id": next_id(&mut counter), "timestamp": clock.iso(), "type": "user", "content": [{"text": turn.user_text}]}));
        let mut thoughts = Vec::new();
        for step in &turn.steps {
            clock.tick(rng);
            match step {
                Step::Reasoning(text) => thoughts.push(json!({"subject": "Planning the next step", "description": text, "timestamp": clock.iso()})),
                Step::Message(text) => {
                    let message = gemini_message(next_id(&mut counter), clock, plan.model, text, std::mem::take(&mut thoughts));
                    messages.push(message);
                }
                Step::Tool { command, output, exit_code } => {
                    let mut message = gemini_message(next_id(&mut counter), clock, plan.model, "", std::mem::take(&mut thoughts));
                    let call_id = format!("run_shell_command_{}_{counter}", clock.unix_seconds());
                    let rendered = format!("Output: {output}\nExit Code: {exit_code}\nProcess Group PGID: 48211");
                    message["toolCalls"] = json!([{
                        "id": call_id, "name": "run_shell_command",
                        "args": {"command": command, "description": "Run the command."},
                        "result": [{"functionResponse": {"id": call_id, "name": "run_shell_command", "response": {"output": rendered}}}],
                        "status": "success", "timestamp": clock.iso(), "resultDisplay": "", "displayName": "Shell",
                        "description": "", "renderOutputAsMarkdown": false
                    }]);
                    messages.push(message);
                }
            }
        }
        clock.tick(rng);
        messages.push(gemini_message(
            next_id(&mut counter),
            clock,
            plan.model,
            &turn.final_text,
            thoughts,
        ));
    }
    messages
}

fn gemini_message(
    id: String,
    clock: &Clock,
    model: &str,
    content: &str,
    thoughts: Vec<Value>,
) -> Value {
    json!({"id": id, "timestamp": clock.iso(), "type": "gemini", "content": content, "thoughts": thoughts,
           "tokens": {"input": 12033, "output": 74, "cached": 0, "thoughts": 121, "tool": 0, "total": 12228}, "model": model})
}
