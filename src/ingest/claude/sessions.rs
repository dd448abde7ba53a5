//! The sessions one file yields: the main session and one per sub-agent, and the routing of
//! each record to its session (naming and linking sub-agents on first sight).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::parser::Parser;
use super::text::{content_text, fill, is_sidechain, session_id_of, str_field, str_field_of};
use crate::model::{ParsedSession, SessionMeta, Source, parse_timestamp};

/// One session being built.
pub(super) struct Builder {
    pub(super) session: ParsedSession,
    pub(super) keys: HashSet<String>,
    pub(super) current_model: Option<String>,
    pub(super) is_subagent: bool,
    pub(super) has_user_input: bool,
    /// Non-sidechain conversation records were routed here (main session only).
    pub(super) has_records: bool,
    pub(super) custom_title: Option<String>,
    pub(super) ai_title: Option<String>,
    pub(super) summary: Option<String>,
}

impl Builder {
    fn new(native_id: String, is_subagent: bool) -> Builder {
        Builder {
            session: ParsedSession {
                source: Source::Claude,
                native_id,
                meta: SessionMeta::default(),
                events: Vec::new(),
            },
            keys: HashSet::new(),
            current_model: None,
            is_subagent,
            has_user_input: false,
            has_records: false,
            custom_title: None,
            ai_title: None,
            summary: None,
        }
    }

    pub(super) fn absorb_meta(&mut self, record: &Map<String, Value>) {
        let meta = &mut self.session.meta;
        fill(&mut meta.cwd, str_field(record, "cwd"));
        fill(&mut meta.git_branch, str_field(record, "gitBranch"));
        fill(&mut meta.harness_version, str_field(record, "version"));
        fill(&mut meta.slug, str_field(record, "slug"));
        if meta.started_at.is_none() {
            meta.started_at = record.get("timestamp").and_then(parse_timestamp);
        }
    }

    pub(super) fn set_model(&mut self, model: &str) {
        self.current_model = Some(model.to_string());
        fill(&mut self.session.meta.model, Some(model));
    }
}

impl Parser<'_> {
    /// The file's own (non-sidechain) session, created on first use.
    pub(super) fn main(&mut self) -> usize {
        if let Some(&index) = self.by_id.get(&self.main_id) {
            return index;
        }
        let main_id = self.main_id.clone();
        let index = self.builder(&main_id, false);
        let forked = self
            .index
            .main_session_ids
            .iter()
            .find(|id| **id != main_id)
            .cloned();
        self.builders[index].session.meta.forked_from_native_id = forked;
        index
    }

    fn builder(&mut self, native_id: &str, is_subagent: bool) -> usize {
        if let Some(&index) = self.by_id.get(native_id) {
            return index;
        }
        self.builders
            .push(Builder::new(native_id.to_string(), is_subagent));
        let index = self.builders.len() - 1;
        self.by_id.insert(native_id.to_string(), index);
        index
    }

    /// The session a record belongs to (creating sub-agent sessions on first sight).
    pub(super) fn route(&mut self, record: &Map<String, Value>, uuid: Option<&str>) -> usize {
        if !is_sidechain(record) {
            let main = self.main();
            if matches!(
                str_field(record, "type"),
                Some("user" | "assistant" | "system" | "attachment")
            ) {
                self.builders[main].has_records = true;
            }
            return main;
        }
        let session_id = session_id_of(record);
        let agent_id = str_field(record, "agentId").filter(|id| !id.is_empty());
        let mut inline = false;
        let native_id = if let Some(agent_id) = agent_id {
            format!("agent-{agent_id}")
        } else if self.stem.starts_with("agent-") {
            self.stem.clone()
        } else {
            let root = uuid
                .map(|uuid| self.index.sidechain_root(uuid).to_string())
                .unwrap_or_else(|| "orphan".to_string());
            inline = true;
            format!(
                "{}-sidechain-{root}",
                session_id.unwrap_or(self.main_id.as_str())
            )
        };
        if let Some(&existing) = self.by_id.get(&native_id) {
            return existing;
        }
        let index = self.builder(&native_id, true);
        let parent = session_id
            .map(str::to_string)
            .or_else(|| self.directory_session.clone())
            .unwrap_or_else(|| self.main_id.clone());
        let meta = &mut self.builders[index].session.meta;
        meta.parent_native_id = Some(parent);
        if let Some(sidecar) = self.sidecar {
            meta.agent_name = str_field_of(sidecar, "agentType").map(str::to_string);
            meta.title = str_field_of(sidecar, "description").map(str::to_string);
        }
        // Inline sub-agents: find the Task call whose prompt is the sidechain's first message.
        if inline
            && meta.agent_name.is_none()
            && let Some(prompt) = record
                .get("message")
                .and_then(|message| message.get("content"))
                .map(content_text)
            && let Some((agent_type, description)) = self.index.task_prompts.get(prompt.trim())
        {
            meta.agent_name = agent_type.clone();
            meta.title = description.clone();
        }
        index
    }
}
