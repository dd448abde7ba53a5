//! Google Antigravity: the `agy` CLI (`~/.gemini/antigravity-cli`), the 2.0 desktop app
//! (`~/.gemini/antigravity`) and the IDE (`~/.gemini/antigravity-ide`, `antigravity-backup`).
//!
//! One conversation is stored across many files of its home, all named by its uuid:
//! `brain/<uuid>/.system_generated/logs/transcript_full.jsonl` (full), `transcript.jsonl`
//! (compact: long strings cut with `<truncated N bytes>`, tool arguments as JSON text),
//! `logs/chunks/{transcript,transcript_full}/NNNNNNNN.jsonl` segments of newer CLI builds,
//! `logs/overview.txt` of older IDE builds, plus `conversations/<uuid>.db` (SQLite trajectory:
//! token usage and exact model ids) and `annotations/<uuid>.pbtxt` (CLI title). The session is
//! the union of every transcript by `step_index`, the full form winning, sorted by step (file
//! order is not step order). Records: `{step_index, source, type, status, created_at, content?,
//! thinking?, tool_calls?, error?, truncated_fields?}`.
//!
//! Layout: this file sniffs records and defines what the parser is given (a [`Conversation`],
//! read by `group`); `steps` builds the union; `prompt` takes the user's words out of the
//! wrappers; `events` emits events and pairs tool calls with results by position; `home`
//! reads the home's shared indexes (history, caches, the app's summaries); `trajectory` reads
//! the `.db`; `group` finds a conversation's files and reads them.

mod events;
pub mod group;
pub mod home;
mod prompt;
mod steps;
pub mod trajectory;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::ingest::lines::JsonLine;
use crate::model::{ParseOutput, ParseWarning, ParsedSession, SessionMeta, Source};
use steps::union_of;
pub use trajectory::{Generation, Trajectory};

/// The three products writing this format; `source` is `antigravity` for all of them, the
/// product is kept in the session's `harness_version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Product {
    Cli,
    App,
    Ide,
}

impl Product {
    pub fn name(self) -> &'static str {
        match self {
            Product::Cli => "antigravity-cli",
            Product::App => "antigravity-app",
            Product::Ide => "antigravity-ide",
        }
    }
}

/// Which encoding of the record stream a transcript file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Form {
    /// `transcript_full.jsonl` (and its chunks): untruncated, typed arguments.
    Full,
    /// `transcript.jsonl`, its chunks and `overview.txt`: cut strings, JSON-text arguments.
    Compact,
}

/// One transcript file of a conversation, read.
#[derive(Debug, Clone)]
pub struct Transcript {
    /// The file name relative to the conversation's `logs/` directory, for warnings.
    pub name: String,
    pub form: Form,
    pub lines: Vec<JsonLine>,
}

/// Facts about a conversation found outside its transcripts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConversationMeta {
    pub title: Option<String>,
    pub cwd: Option<String>,
    /// The product its home says wrote it, when the home is named like one.
    pub product: Option<Product>,
}

/// Everything the parser is given for one conversation.
#[derive(Debug, Clone)]
pub struct Conversation {
    /// The `brain/<uuid>` directory name.
    pub id: String,
    pub transcripts: Vec<Transcript>,
    pub meta: ConversationMeta,
    pub trajectory: Option<Trajectory>,
}

/// An Antigravity step record: integer `step_index`, a known `source`, string `type`.
pub fn is_step_record(value: &Value) -> bool {
    let source_known = matches!(
        value.get("source").and_then(Value::as_str),
        Some("USER_EXPLICIT" | "USER_IMPLICIT" | "MODEL" | "SYSTEM")
    );
    value.get("step_index").is_some_and(Value::is_u64)
        && source_known
        && value.get("type").is_some_and(Value::is_string)
}

/// A transcript: one of its leading lines is a step record.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().take(3).any(|line| is_step_record(&line.value))
}

/// Parses one conversation into its session.
pub fn parse(conversation: &Conversation) -> ParseOutput {
    let mut warnings: Vec<ParseWarning> = Vec::new();
    let steps = union_of(&conversation.transcripts, &mut warnings);
    let product = conversation
        .meta
        .product
        .or_else(|| {
            conversation
                .trajectory
                .as_ref()
                .and_then(Trajectory::product)
        })
        .unwrap_or_else(|| product_from_prompts(&steps));
    let usage_by_step: BTreeMap<u64, &Generation> = conversation
        .trajectory
        .iter()
        .flat_map(|trajectory| trajectory.generations.iter())
        .filter_map(|generation| Some((*generation.steps.first()?, generation)))
        .collect();
    let emitted = events::emit(&steps, &usage_by_step, &mut warnings);
    let mut meta = SessionMeta {
        title: conversation.meta.title.clone(),
        cwd: conversation
            .meta
            .cwd
            .clone()
            .or_else(|| {
                conversation
                    .trajectory
                    .as_ref()
                    .and_then(|trajectory| trajectory.workspace.clone())
            })
            .or(emitted.tool_cwd),
        harness_version: Some(product.name().to_string()),
        model: emitted.model,
        ..SessionMeta::default()
    };
    meta.started_at = emitted.events.iter().find_map(|event| event.timestamp);
    let mut output = ParseOutput {
        sessions: Vec::new(),
        warnings,
    };
    output.sessions.push(ParsedSession {
        source: Source::Antigravity,
        native_id: conversation.id.clone(),
        meta,
        events: emitted.events,
    });
    output
}

/// A transcript found outside a product home (a copied file): the conversation is that one
/// file, named after it; `transcript_full` names hold the full form.
pub fn parse_standalone(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let form = if name.contains("full") {
        Form::Full
    } else {
        Form::Compact
    };
    let id = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "transcript".to_string());
    parse(&Conversation {
        id,
        transcripts: vec![Transcript {
            name,
            form,
            lines: lines.to_vec(),
        }],
        meta: ConversationMeta::default(),
        trajectory: None,
    })
}

/// A home not named like a product: IDE prompts carry the editor's state, the others do not.
fn product_from_prompts(steps: &[steps::Step]) -> Product {
    let ide_state = steps.iter().any(|step| {
        step.kind() == "USER_INPUT"
            && step
                .text("content")
                .is_some_and(|content| prompt::has_editor_state(&content))
    });
    if ide_state {
        Product::Ide
    } else {
        Product::App
    }
}

#[cfg(test)]
mod tests;
