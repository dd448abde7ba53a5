//! Format-neutral plans of generated sessions: how many turns, which steps (reasoning,
//! messages, tool calls with outputs of realistic sizes), timestamps and identities. The
//! format writers render a plan into Codex, Claude Code or Gemini CLI logs.

use crate::rng::Rng;
use crate::vocab::Vocabulary;

/// First session start: 2025-06-01T00:00:00Z.
const EPOCH_START: i64 = 1_748_736_000;
/// Sessions start uniformly over one year.
const SPAN_SECONDS: i64 = 365 * 24 * 3600;

/// Which harness writes the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Harness {
    Codex,
    Claude,
    GeminiJsonl,
    GeminiJson,
}

/// The size class of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A few turns of a few steps: most sessions.
    Regular,
    /// Exactly this many short turns.
    ManyTurns(usize),
    /// One turn with about this many events.
    WideTurn(usize),
    /// A regular session whose first tool output has this many bytes.
    BigPayload(usize),
}

/// One step of an agent turn.
#[derive(Debug, Clone)]
pub enum Step {
    Reasoning(String),
    Message(String),
    Tool {
        command: String,
        output: String,
        exit_code: i64,
    },
}

#[derive(Debug, Clone)]
pub struct TurnPlan {
    pub user_text: String,
    pub steps: Vec<Step>,
    pub final_text: String,
}

#[derive(Debug, Clone)]
pub struct SessionPlan {
    pub harness: Harness,
    pub native_id: String,
    /// Unix seconds of the first record.
    pub started_at: i64,
    pub project: String,
    pub branch: String,
    pub model: &'static str,
    pub turns: Vec<TurnPlan>,
    /// A Claude sub-agent transcript spawned from the first turn.
    pub subagent: Option<Box<SessionPlan>>,
    /// Claude's `slug`, shared by the sessions of one continued conversation ([`plan_chain`]).
    pub slug: Option<String>,
}

impl SessionPlan {
    /// Searchable events this plan should produce (user input, each step, final answer;
    /// a tool step is a call and a response). Harness runtime records come on top.
    pub fn planned_documents(&self) -> u64 {
        let own: u64 = self.turns.iter().map(TurnPlan::planned_documents).sum();
        own + self
            .subagent
            .as_ref()
            .map_or(0, |subagent| subagent.planned_documents())
    }

    pub fn cwd(&self) -> String {
        format!("/home/dev/src/{}", self.project)
    }
}

impl TurnPlan {
    pub fn planned_documents(&self) -> u64 {
        let steps: u64 = self
            .steps
            .iter()
            .map(|step| match step {
                Step::Tool { .. } => 2,
                _ => 1,
            })
            .sum();
        2 + steps
    }
}

const MODELS_CODEX: &[&str] = &["gpt-5.4", "gpt-5.3-codex", "gpt-5.2"];
const MODELS_CLAUDE: &[&str] = &["claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101"];
const MODELS_GEMINI: &[&str] = &[
    "gemini-2.5-pro",
    "gemini-2.5-flash",
    "gemini-3-flash-preview",
];
const PROJECTS: &[&str] = &[
    "webapp",
    "parquet-indexer",
    "nightly-jobs",
    "billing-api",
    "infra",
    "mobile-client",
    "data-pipeline",
    "docs-site",
    "auth-service",
    "ml-training",
];

/// Plans session `index` of shape `shape`; everything is drawn from `rng`.
pub fn plan_session(rng: &mut Rng, vocabulary: &Vocabulary, shape: Shape) -> SessionPlan {
    let harness = match rng.below(100) {
        0..45 => Harness::Codex,
        45..80 => Harness::Claude,
        80..95 => Harness::GeminiJsonl,
        _ => Harness::GeminiJson,
    };
    let model = *rng.pick(match harness {
        Harness::Codex => MODELS_CODEX,
        Harness::Claude => MODELS_CLAUDE,
        Harness::GeminiJsonl | Harness::GeminiJson => MODELS_GEMINI,
    });
    let tool_probability = if rng.chance(0.25) { 0.0 } else { 0.45 };
    let turns = plan_turns(rng, vocabulary, shape, tool_probability);
    let subagent = (harness == Harness::Claude && shape == Shape::Regular && rng.chance(0.1))
        .then(|| Box::new(plan_subagent(rng, vocabulary, model)));
    SessionPlan {
        harness,
        native_id: rng.uuid(),
        started_at: EPOCH_START + rng.below(SPAN_SECONDS as u64) as i64,
        project: rng.pick(PROJECTS).to_string(),
        branch: format!("fix/{}-{}", vocabulary.sample(rng), vocabulary.sample(rng)),
        model,
        turns,
        subagent,
        slug: None,
    }
}

/// A day between the starts of two sessions of a chain: continuations never overlap.
const CHAIN_STEP_SECONDS: i64 = 24 * 3600;

/// `length` Claude sessions continuing one conversation (`claude --continue`): regular
/// sessions of one project and branch sharing a slug, started a day apart.
pub fn plan_chain(rng: &mut Rng, vocabulary: &Vocabulary, length: usize) -> Vec<SessionPlan> {
    // Three mid-frequency words: distinct chains get distinct slugs.
    let mut word = || vocabulary.word(rng.between(500, 5_000) as usize).to_owned();
    let slug = format!("{}-{}-{}", word(), word(), word());
    let first_start = EPOCH_START + rng.below((SPAN_SECONDS / 2) as u64) as i64;
    let project = rng.pick(PROJECTS).to_string();
    let branch = format!("fix/{}", vocabulary.sample(rng));
    let model = *rng.pick(MODELS_CLAUDE);
    (0..length)
        .map(|position| SessionPlan {
            harness: Harness::Claude,
            native_id: rng.uuid(),
            started_at: first_start + position as i64 * CHAIN_STEP_SECONDS,
            project: project.clone(),
            branch: branch.clone(),
            model,
            turns: plan_turns(rng, vocabulary, Shape::Regular, 0.45),
            subagent: None,
            slug: Some(slug.clone()),
        })
        .collect()
}

fn plan_subagent(rng: &mut Rng, vocabulary: &Vocabulary, model: &'static str) -> SessionPlan {
    SessionPlan {
        harness: Harness::Claude,
        native_id: rng.hex(17),
        started_at: 0,
        project: String::new(),
        branch: String::new(),
        model,
        turns: vec![plan_turn(rng, vocabulary, 3, 0.6)],
        subagent: None,
        slug: None,
    }
}

fn plan_turns(rng: &mut Rng, vocabulary: &Vocabulary, shape: Shape, tools: f64) -> Vec<TurnPlan> {
    match shape {
        Shape::Regular => {
            let count = 1 + rng.exponential_count(1.6) as usize;
            (0..count)
                .map(|_| {
                    let steps = 1 + rng.exponential_count(1.4) as usize;
                    plan_turn(rng, vocabulary, steps, tools)
                })
                .collect()
        }
        Shape::ManyTurns(count) => (0..count)
            .map(|_| plan_turn(rng, vocabulary, 0, 0.0))
            .collect(),
        Shape::WideTurn(events) => vec![plan_turn(
            rng,
            vocabulary,
            events.saturating_sub(2) / 2,
            1.0,
        )],
        Shape::BigPayload(bytes) => {
            let mut turn = plan_turn(rng, vocabulary, 2, 1.0);
            if let Some(Step::Tool { output, .. }) = turn.steps.first_mut() {
                *output = vocabulary.output(rng, bytes);
            }
            vec![turn]
        }
    }
}

fn plan_turn(rng: &mut Rng, vocabulary: &Vocabulary, steps: usize, tools: f64) -> TurnPlan {
    let user_sentences = rng.between(1, 3) as usize;
    let steps = (0..steps)
        .map(|_| {
            if rng.chance(tools) {
                plan_tool(rng, vocabulary)
            } else if rng.chance(0.5) {
                let sentences = rng.between(1, 3) as usize;
                Step::Reasoning(vocabulary.prose(rng, sentences))
            } else {
                Step::Message(vocabulary.prose(rng, 1))
            }
        })
        .collect();
    let final_sentences = rng.between(1, 4) as usize;
    TurnPlan {
        user_text: vocabulary.prose(rng, user_sentences),
        steps,
        final_text: vocabulary.prose(rng, final_sentences),
    }
}

fn plan_tool(rng: &mut Rng, vocabulary: &Vocabulary) -> Step {
    let bytes = tool_output_size(rng);
    Step::Tool {
        command: vocabulary.command(rng),
        output: vocabulary.output(rng, bytes),
        exit_code: if rng.chance(0.15) { 1 } else { 0 },
    }
}

/// Tool output sizes: mostly small, a long tail up to 100 KB.
fn tool_output_size(rng: &mut Rng) -> usize {
    match rng.below(100) {
        0..55 => rng.between(8, 1_000) as usize,
        55..88 => rng.between(1_000, 8_000) as usize,
        88..99 => rng.between(8_000, 40_000) as usize,
        _ => rng.between(40_000, 100_000) as usize,
    }
}
