//! Hook files esker owns whole (Kiro's `~/.kiro/hooks/esker-recall.json`, Cline's
//! `~/Documents/Cline/Hooks/UserPromptSubmit` script): written when absent or when they are
//! esker's and say something else, deleted by `--remove`, and never touched when a file of the
//! user's own sits at that path. Pure: text in, decision out.

use serde_json::Value;

use super::hook_config;

/// A file esker writes whole for one agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedFile {
    pub text: String,
    /// Set the executable bits once written (a hook script the agent runs directly).
    pub executable: bool,
    /// The agent events the file hooks, for reports.
    pub events: Vec<&'static str>,
}

/// What to do with the file at an owned path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilePlan {
    /// Write these bytes (absent, or esker's with other bytes).
    Write(String),
    /// Delete it (esker's, `--remove`).
    Delete,
    /// Already as wanted (or, removing, nothing of esker's there).
    Keep,
    /// A file of the user's own is there: left alone.
    Foreign,
}

/// Whether `text` is a file esker wrote: it runs `esker ... recall --hook`.
pub fn is_ours(text: &str) -> bool {
    hook_config::is_ours(&Value::String(text.to_owned()))
}

/// The plan for `current` (the file's text, `None` when absent).
pub fn plan(current: Option<&str>, wanted: &OwnedFile, remove: bool) -> FilePlan {
    match (current, remove) {
        (Some(text), _) if !is_ours(text) => FilePlan::Foreign,
        (None, true) => FilePlan::Keep,
        (Some(_), true) => FilePlan::Delete,
        (Some(text), false) if text == wanted.text => FilePlan::Keep,
        (_, false) => FilePlan::Write(wanted.text.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted() -> OwnedFile {
        OwnedFile {
            text: "#!/bin/sh\nexec /opt/bin/esker recall --hook cline\n".to_owned(),
            executable: true,
            events: vec!["UserPromptSubmit"],
        }
    }

    #[test]
    fn an_absent_file_is_written_then_kept_then_deleted() {
        let wanted = wanted();
        assert_eq!(
            plan(None, &wanted, false),
            FilePlan::Write(wanted.text.clone())
        );
        assert_eq!(plan(Some(&wanted.text), &wanted, false), FilePlan::Keep);
        assert_eq!(plan(Some(&wanted.text), &wanted, true), FilePlan::Delete);
        assert_eq!(plan(None, &wanted, true), FilePlan::Keep);
    }

    #[test]
    fn an_older_file_of_eskers_is_rewritten() {
        let old = "#!/bin/sh\nexec /old/esker recall --hook cline\n";
        assert_eq!(
            plan(Some(old), &wanted(), false),
            FilePlan::Write(wanted().text)
        );
    }

    #[test]
    fn a_users_own_file_is_never_touched() {
        let own = "#!/bin/sh\necho '{\"cancel\": false}'\n";
        assert_eq!(plan(Some(own), &wanted(), false), FilePlan::Foreign);
        assert_eq!(plan(Some(own), &wanted(), true), FilePlan::Foreign);
    }
}
