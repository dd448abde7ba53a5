//! Profiles of `esker serve`: which tool set a client sees. Each profile is a thin adapter
//! (its tool definitions, request validation, response shaping and error envelope) over the
//! shared service layer in [`crate::service`] (`moraine`, the default; `agtrace`; `relay`; `memory`);
//! `--profile a,b` serves several at once unless two of them define the same tool name.
//!
//! Adding a profile: one module implementing [`Profile`], plus one line in [`KNOWN`]. A
//! profile that needs the server's settings (the `memory` profile: its default project and
//! redaction rules) reads them from [`ServeSettings`] when it is made.

pub mod agtrace;
pub mod memory;
pub mod moraine;
pub mod relay;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::Tool;

use crate::memory::service::MemorySettings;
use crate::redact::Redactor;
use crate::service::catalog::Catalog;
use crate::service::envelope::ToolReply;
use crate::service::validate::Arguments;

/// The profile served when none is named.
pub const DEFAULT_PROFILE: &str = "moraine";

/// A boxed tool call in flight.
pub type ReplyFuture<'a> = Pin<Box<dyn Future<Output = Option<ToolReply>> + Send + 'a>>;

/// One tool set over the shared service layer.
pub trait Profile: Send + Sync {
    /// The name given to `--profile`.
    fn name(&self) -> &'static str;

    /// The tools it advertises, in a stable order.
    fn tools(&self) -> Vec<Tool>;

    /// Server instructions describing how to use its tools.
    fn instructions(&self) -> &'static str;

    /// Runs one call of `tool`; `None` when the profile has no tool of that name. Never fails
    /// otherwise: errors are in-band replies in the profile's own envelope.
    fn call<'a>(
        &'a self,
        catalog: &'a Catalog,
        tool: &'a str,
        arguments: &'a Arguments,
    ) -> ReplyFuture<'a>;
}

/// What `esker serve` tells the profiles it makes.
#[derive(Debug, Clone)]
pub struct ServeSettings {
    /// Memory entries' default project (`--project`, else the working directory's name) and
    /// the root `ingest_docs` reads from.
    pub memory: MemorySettings,
    /// The redaction rules (`--rules`), which the memory policy refuses secrets by.
    pub redactor: Arc<Redactor>,
}

impl Default for ServeSettings {
    fn default() -> ServeSettings {
        ServeSettings {
            memory: MemorySettings::from_cwd(None),
            redactor: Redactor::builtin(),
        }
    }
}

/// Makes a fresh profile.
type MakeProfile = fn(&ServeSettings) -> Box<dyn Profile>;

/// Every profile esker knows, by name.
const KNOWN: [(&str, MakeProfile); 4] = [
    ("moraine", |_| Box::new(moraine::Moraine)),
    ("agtrace", |_| Box::new(agtrace::AgTrace::default())),
    ("relay", |_| Box::new(relay::Relay)),
    ("memory", |settings| {
        Box::new(memory::MemoryProfile::new(settings))
    }),
];

/// The names `--profile` accepts.
pub fn known_names() -> Vec<&'static str> {
    KNOWN.iter().map(|(name, _)| *name).collect()
}

/// Why a `--profile` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    #[error("unknown profile {name:?} (known profiles: {known})")]
    Unknown { name: String, known: String },
    #[error("profile {name:?} is named twice")]
    Repeated { name: String },
    #[error(
        "profiles {first:?} and {second:?} both define the tool {tool:?}; serve them from separate `esker serve` processes"
    )]
    Collision {
        tool: String,
        first: String,
        second: String,
    },
    #[error("no profile given")]
    Empty,
}

/// The profiles one server serves, with their tools; tool names are unique across them.
pub struct ProfileSet {
    profiles: Vec<Box<dyn Profile>>,
    /// Each advertised tool and the index of the profile that owns it.
    tools: Vec<(Tool, usize)>,
}

impl fmt::Debug for ProfileSet {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_list()
            .entries(self.profiles.iter().map(|profile| profile.name()))
            .finish()
    }
}

impl Default for ProfileSet {
    fn default() -> ProfileSet {
        ProfileSet::parse(DEFAULT_PROFILE).expect("the default profile exists")
    }
}

impl ProfileSet {
    /// Parses a comma-separated list of profile names (`moraine,memory`), with the default
    /// settings.
    pub fn parse(names: &str) -> Result<ProfileSet, ProfileError> {
        ProfileSet::parse_with(names, &ServeSettings::default())
    }

    /// Parses a comma-separated list of profile names, making them with `settings`.
    pub fn parse_with(names: &str, settings: &ServeSettings) -> Result<ProfileSet, ProfileError> {
        let mut profiles: Vec<Box<dyn Profile>> = Vec::new();
        for name in names
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            let Some((_, make)) = KNOWN.iter().find(|(known, _)| *known == name) else {
                return Err(ProfileError::Unknown {
                    name: name.to_owned(),
                    known: known_names().join(", "),
                });
            };
            if profiles.iter().any(|profile| profile.name() == name) {
                return Err(ProfileError::Repeated {
                    name: name.to_owned(),
                });
            }
            profiles.push(make(settings));
        }
        ProfileSet::from_profiles(profiles)
    }

    /// The set of `profiles`, refusing tool names defined by two of them.
    pub fn from_profiles(profiles: Vec<Box<dyn Profile>>) -> Result<ProfileSet, ProfileError> {
        if profiles.is_empty() {
            return Err(ProfileError::Empty);
        }
        let mut tools: Vec<(Tool, usize)> = Vec::new();
        for (owner, profile) in profiles.iter().enumerate() {
            for tool in profile.tools() {
                if let Some((_, first)) = tools.iter().find(|(seen, _)| seen.name == tool.name) {
                    return Err(ProfileError::Collision {
                        tool: tool.name.to_string(),
                        first: profiles[*first].name().to_owned(),
                        second: profile.name().to_owned(),
                    });
                }
                tools.push((tool, owner));
            }
        }
        Ok(ProfileSet { profiles, tools })
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.profiles.iter().map(|profile| profile.name()).collect()
    }

    /// Every advertised tool, profile by profile.
    pub fn tools(&self) -> Vec<Tool> {
        self.tools.iter().map(|(tool, _)| tool.clone()).collect()
    }

    /// The instructions of one profile as they are; several are joined under their names.
    pub fn instructions(&self) -> String {
        if let [only] = self.profiles.as_slice() {
            return only.instructions().to_owned();
        }
        self.profiles
            .iter()
            .map(|profile| format!("[{} tools]\n{}", profile.name(), profile.instructions()))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// Runs one call through the profile that owns `tool`; `None` for an unknown tool.
    pub async fn call(
        &self,
        catalog: &Catalog,
        tool: &str,
        arguments: &Arguments,
    ) -> Option<ToolReply> {
        let (_, owner) = self.tools.iter().find(|(known, _)| known.name == tool)?;
        self.profiles[*owner].call(catalog, tool, arguments).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_moraine_alone() {
        let set = ProfileSet::default();
        assert_eq!(set.names(), ["moraine"]);
        let names: Vec<String> = set.tools().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(
            names,
            [
                "search_sessions",
                "open",
                "list_sessions",
                "file_attention",
                "get_ingest_status"
            ]
        );
    }

    #[test]
    fn colliding_profiles_are_refused_naming_the_tool() {
        let error = ProfileSet::parse("moraine,agtrace").unwrap_err();
        assert_eq!(
            error,
            ProfileError::Collision {
                tool: "list_sessions".into(),
                first: "moraine".into(),
                second: "agtrace".into(),
            }
        );
        assert!(error.to_string().contains("\"list_sessions\""));
    }

    #[test]
    fn relay_collides_with_both_other_profiles_on_list_sessions() {
        for (names, first) in [("moraine,relay", "moraine"), ("relay,agtrace", "relay")] {
            let error = ProfileSet::parse(names).unwrap_err();
            assert!(
                matches!(&error, ProfileError::Collision { tool, first: owner, .. }
                    if tool == "list_sessions" && owner == first),
                "{names}: {error}"
            );
        }
        let set = ProfileSet::parse("relay").unwrap();
        let names: Vec<String> = set.tools().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(
            names,
            ["search_history", "get_conversation", "list_sessions"]
        );
    }

    #[test]
    fn unknown_repeated_and_empty_lists_are_refused() {
        assert!(matches!(
            ProfileSet::parse("moraine,nope"),
            Err(ProfileError::Unknown { .. })
        ));
        assert!(matches!(
            ProfileSet::parse("agtrace, agtrace"),
            Err(ProfileError::Repeated { .. })
        ));
        assert_eq!(ProfileSet::parse(" , ").unwrap_err(), ProfileError::Empty);
    }

    #[test]
    fn memory_combines_with_the_default_and_with_agtrace() {
        let set = ProfileSet::parse("moraine,memory").unwrap();
        assert_eq!(set.names(), ["moraine", "memory"]);
        let moraine_tools = ProfileSet::parse("moraine").unwrap().tools().len();
        assert_eq!(
            set.tools().len(),
            moraine_tools + memory::tools::NAMES.len()
        );
        assert!(ProfileSet::parse("agtrace,memory").is_ok());
    }

    #[test]
    fn agtrace_alone_serves_its_six_tools() {
        let set = ProfileSet::parse("agtrace").unwrap();
        let names: Vec<String> = set.tools().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(
            names,
            [
                "list_sessions",
                "get_project_info",
                "get_session_details",
                "analyze_session",
                "search_event_previews",
                "get_event_details",
            ]
        );
    }
}
